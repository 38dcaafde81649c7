import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeEvent, readEvents, TensorboardMetrics, tfRecord } from './tensorboard-events.ts';

// golden.tfevents was written by TensorBoard's own EventFileWriter (fixtures/make-tfevents-golden.py).
const golden = new Uint8Array(readFileSync(new URL('./fixtures/golden.tfevents', import.meta.url)));

test('reads the event file TensorBoard wrote: file_version, then scalars per step', () => {
  const events = readEvents(golden);
  assert.equal(events.length, 3);
  assert.equal(events[0]!.fileVersion, 'brain.Event:2');
  assert.equal(events[0]!.writer, 'tensorboard.summary.writer.event_file_writer');
  assert.deepEqual(
    events.slice(1).map((e) => ({ ...e })),
    [
      { wallTime: 1700000001.5, step: 1, scalars: { 'val/resolved': 0.25, 'train/loss': 1.5 } },
      { wallTime: 1700000002.5, step: 2, scalars: { 'val/resolved': 0.5, 'train/loss': -0.125 } },
    ],
  );
});

test('writes the same bytes as TensorBoard for the same events (framing, CRCs, protobuf)', () => {
  const first = 16 + Number(new DataView(golden.buffer, golden.byteOffset).getBigUint64(0, true));
  const mine = Buffer.concat([
    tfRecord(
      encodeEvent({ wallTime: 1700000001.5, step: 1, scalars: { 'val/resolved': 0.25, 'train/loss': 1.5 } }),
    ),
    tfRecord(
      encodeEvent({
        wallTime: 1700000002.5,
        step: 2,
        scalars: { 'val/resolved': 0.5, 'train/loss': -0.125 },
      }),
    ),
  ]);
  assert.deepEqual(new Uint8Array(mine), golden.subarray(first));
});

test('a corrupted record is refused, not misread', () => {
  const bad = golden.slice();
  bad[bad.length - 10]! ^= 0xff;
  assert.throws(() => readEvents(bad), /bad data CRC/);
  assert.throws(() => readEvents(golden.subarray(0, golden.length - 3)), /truncated/);
});

test('the sink writes an event file in the run directory that reads back (non-finite values left out)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandgym-tb-'));
  try {
    const sink = new TensorboardMetrics(dir, () => 1_700_000_000_000);
    await sink.log(3, { 'train/reward': 0.75, 'train/kl': Number.NaN });
    await sink.close();
    const [name] = readdirSync(dir);
    assert.match(name!, /^events\.out\.tfevents\.1700000000\./);
    const events = readEvents(new Uint8Array(readFileSync(join(dir, name!))));
    assert.equal(events[0]!.fileVersion, 'brain.Event:2');
    assert.deepEqual(events[1], { wallTime: 1_700_000_000, step: 3, scalars: { 'train/reward': 0.75 } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
