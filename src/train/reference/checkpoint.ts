import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

/**
 * Writes the checkpoint into a fresh sibling directory and renames it into place, so `dir` always holds
 * one whole checkpoint: the old one until the rename, the new one after. (A crash between moving the old
 * one aside and renaming leaves both complete, as `<dir>.old-<pid>` and `<dir>.partial-<pid>`.)
 */
export async function writeCheckpoint(
  dir: string,
  manifest: Omit<CheckpointManifest, 'format' | 'version' | 'files' | 'tensors'>,
  layout: ParamLayout,
  data: CheckpointData,
): Promise<void> {
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const files: CheckpointManifest['files'] = { params: 'params.f32' };
  await writeFile(join(partial, files.params), toBytes(data.params));
  if (data.optimizer) {
    files.adam_m = 'adam_m.f32';
    files.adam_v = 'adam_v.f32';
    await writeFile(join(partial, files.adam_m), toBytes(data.optimizer.m));
    await writeFile(join(partial, files.adam_v), toBytes(data.optimizer.v));
  }
  const full: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    ...manifest,
    tensors: layout.slots.map(({ name, shape, offset }) => ({ name, shape, offset })),
    files,
  };
  await writeFile(join(partial, MANIFEST), `${JSON.stringify(full, null, 1)}\n`);
  const old = `${dir}.old-${process.pid}`;
  const replacing = await exists(dir);
  if (replacing) await rename(dir, old);
  await rename(partial, dir);
  if (replacing) await rm(old, { recursive: true, force: true });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
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
