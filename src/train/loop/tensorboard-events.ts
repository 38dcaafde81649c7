import { appendFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import CRC32C from 'crc-32/crc32c.js';
import type { MetricsSink } from './metrics-log.ts';

/*
 * TensorBoard event files: a TFRecord stream (u64 LE length, masked CRC-32C of the length, the data,
 * masked CRC-32C of the data) of tensorflow.Event protobufs. Field numbers are tensorflow's
 * (core/util/event.proto, core/framework/summary.proto): Event.wall_time=1 double, step=2 int64,
 * file_version=3 string, summary=5; Summary.value=1; Summary.Value.tag=1, simple_value=2 float;
 * Event.source_metadata=10 with SourceMetadata.writer=1.
 */

const MASK_DELTA = 0xa282ead8;

/** TFRecord's masked CRC-32C: rotate right by 15 and add a constant, so CRCs of CRCs stay strong. */
export function maskedCrc32c(data: Uint8Array): number {
  const crc = CRC32C.buf(data) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0;
}

/** One TFRecord: the framing around `data`. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

export interface TfEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  /** Which program wrote the file (Event.source_metadata.writer). */
  writer?: string;
  scalars?: Record<string, number>;
}

export function encodeEvent(e: TfEvent): Uint8Array {
  const w = new BinaryWriter();
  // Proto3 leaves zero values out; fields go in number order, as protobuf's own serializers write them.
  if (e.wallTime !== 0) w.tag(1, 1).double(e.wallTime);
  if (e.step !== 0) w.tag(2, 0).int64(e.step);
  if (e.fileVersion !== undefined) w.tag(3, 2).string(e.fileVersion);
  if (e.writer !== undefined) w.tag(10, 2).fork().tag(1, 2).string(e.writer).join();
  if (e.scalars) {
    w.tag(5, 2).fork();
    for (const [tag, value] of Object.entries(e.scalars)) {
      w.tag(1, 2).fork().tag(1, 2).string(tag).tag(2, 5).float(value).join();
    }
    w.join();
  }
  return w.finish();
}

/** Reads an event file back: every record's CRCs checked, every Event decoded. */
export function readEvents(file: Uint8Array): TfEvent[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const events: TfEvent[] = [];
  for (let at = 0; at < file.length; ) {
    if (at + 12 > file.length) throw new Error(`event file: truncated record header at byte ${at}`);
    const length = Number(view.getBigUint64(at, true));
    if (view.getUint32(at + 8, true) !== maskedCrc32c(file.subarray(at, at + 8)))
      throw new Error(`event file: bad length CRC at byte ${at}`);
    const data = file.subarray(at + 12, at + 12 + length);
    if (data.length !== length || at + 16 + length > file.length)
      throw new Error(`event file: truncated record at byte ${at}`);
    if (view.getUint32(at + 12 + length, true) !== maskedCrc32c(data))
      throw new Error(`event file: bad data CRC at byte ${at}`);
    events.push(decodeEvent(data));
    at += 16 + length;
  }
  return events;
}

function decodeEvent(data: Uint8Array): TfEvent {
  const r = new BinaryReader(data);
  const e: TfEvent = { wallTime: 0, step: 0 };
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === 1) e.wallTime = r.double();
    else if (field === 2 && wireType === 0) e.step = Number(r.int64());
    else if (field === 3 && wireType === 2) e.fileVersion = r.string();
    else if (field === 5 && wireType === 2) e.scalars = decodeSummary(r.bytes());
    else if (field === 10 && wireType === 2) e.writer = decodeWriter(r.bytes());
    else r.skip(wireType);
  }
  return e;
}

function decodeWriter(data: Uint8Array): string {
  const r = new BinaryReader(data);
  let writer = '';
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === 2) writer = r.string();
    else r.skip(wireType);
  }
  return writer;
}

function decodeSummary(data: Uint8Array): Record<string, number> {
  const r = new BinaryReader(data);
  const scalars: Record<string, number> = {};
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field !== 1 || wireType !== 2) {
      r.skip(wireType);
      continue;
    }
    const v = new BinaryReader(r.bytes());
    let tag = '';
    let value = Number.NaN;
    while (v.pos < v.len) {
      const [f, t] = v.tag();
      if (f === 1 && t === 2) tag = v.string();
      else if (f === 2 && t === 5) value = v.float();
      else v.skip(t);
    }
    scalars[tag] = value;
  }
  return scalars;
}

/**
 * Scalars to a TensorBoard event file in the run directory (`tensorboard --logdir runs/` finds it). A
 * resumed run opens a new file beside the old ones; TensorBoard reads them all.
 */
export class TensorboardMetrics implements MetricsSink {
  readonly path: string;

  constructor(dir: string, now: () => number = Date.now) {
    this.now = now;
    const seconds = Math.floor(now() / 1000);
    this.path = join(dir, `events.out.tfevents.${seconds}.${hostname()}.${process.pid}.sandgym`);
    this.append({ wallTime: now() / 1000, step: 0, fileVersion: 'brain.Event:2', writer: 'sandgym' });
  }

  private readonly now: () => number;

  async log(step: number, metrics: Record<string, number>): Promise<void> {
    const scalars = Object.fromEntries(Object.entries(metrics).filter(([, v]) => Number.isFinite(v)));
    this.append({ wallTime: this.now() / 1000, step, scalars });
  }

  async close(): Promise<void> {}

  private append(e: TfEvent): void {
    appendFileSync(this.path, tfRecord(encodeEvent(e)));
  }
}
