import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '../errors.ts';
import type { ModelConfig } from './model-config.ts';
import type { ParamLayout } from './param-layout.ts';

export const CHECKPOINT_FORMAT = 'sandgym-reference-checkpoint';
export const CHECKPOINT_VERSION = 1;
const MANIFEST = 'manifest.json';

/**
 * manifest.json of a checkpoint directory. The tensors are raw Float32 files (little-endian, the byte
 * order of every platform Node runs on, copied as is) holding the
 * flat parameter vector (and Adam's moments) in the order `tensors` lists, so any tool can read them.
 * The manifest is written last, through a rename: a directory without it is an interrupted save.
 */
export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  version: number;
  model_name: string;
  model: ModelConfig;
  param_count: number;
  tensors: { name: string; shape: number[]; offset: number }[];
  files: { params: string; adam_m?: string; adam_v?: string };
  /** Optimizer steps taken so far. */
  step: number;
  /** xoshiro128** state of the engine's generator. */
  rng_state: number[];
}

export interface CheckpointData {
  params: Float32Array;
  optimizer?: { m: Float32Array; v: Float32Array };
}

export async function writeCheckpoint(
  dir: string,
  manifest: Omit<CheckpointManifest, 'format' | 'version' | 'files' | 'tensors'>,
  layout: ParamLayout,
  data: CheckpointData,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const files: CheckpointManifest['files'] = { params: 'params.f32' };
  await writeFile(join(dir, files.params), toBytes(data.params));
  if (data.optimizer) {
    files.adam_m = 'adam_m.f32';
    files.adam_v = 'adam_v.f32';
    await writeFile(join(dir, files.adam_m), toBytes(data.optimizer.m));
    await writeFile(join(dir, files.adam_v), toBytes(data.optimizer.v));
  }
  const full: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    ...manifest,
    tensors: layout.slots.map(({ name, shape, offset }) => ({ name, shape, offset })),
    files,
  };
  const tmp = join(dir, `${MANIFEST}.tmp-${process.pid}`);
  await writeFile(tmp, `${JSON.stringify(full, null, 1)}\n`);
  await rename(tmp, join(dir, MANIFEST));
}

export async function readManifest(dir: string): Promise<CheckpointManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (e) {
    throw new CheckpointError(
      `checkpoint ${dir}: no ${MANIFEST} (not a checkpoint, or its save was interrupted)`,
      {
        cause: e,
      },
    );
  }
  const m = JSON.parse(text) as CheckpointManifest;
  if (m.format !== CHECKPOINT_FORMAT || m.version !== CHECKPOINT_VERSION) {
    throw new CheckpointError(
      `checkpoint ${dir}: format ${m.format} v${m.version} is not ${CHECKPOINT_FORMAT} v${CHECKPOINT_VERSION}`,
    );
  }
  return m;
}

/** Reads a Float32 file of exactly `length` values. */
export async function readTensorFile(dir: string, file: string, length: number): Promise<Float32Array> {
  const buf = await readFile(join(dir, file));
  if (buf.byteLength !== length * 4) {
    throw new CheckpointError(
      `checkpoint ${dir}: ${file} has ${buf.byteLength} bytes, expected ${length * 4} (${length} float32 values)`,
    );
  }
  const out = new Float32Array(length);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

function toBytes(a: Float32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
