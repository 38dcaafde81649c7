import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorMessage } from '../../errors.ts';
import { CheckpointError } from '../errors.ts';

/** The file `saveState(dir)` writes into `dir`: the weights stay on the server, this says where. */
export const POINTER_FILE = 'tinker-checkpoint.json';

export interface CheckpointPointer {
  format: 'sandgym-tinker-checkpoint';
  /** `tinker://<model_id>/weights/<name>`, as save_weights answered. */
  tinker_path: string;
  base_url: string;
  base_model: string;
  lora_rank: number;
  saved_at: string;
  /** `tinker://<model_id>/sampler_weights/<name>`: the same weights for sampling, when saved for it. */
  sampler_path?: string;
}

/**
 * A checkpoint name the Tinker API accepts (letters, digits, `_`, `-`; SkyRL rejects anything else)
 * from a local path or a free-form name: its last component with every other character as `_`.
 */
export function checkpointName(pathOrName: string): string {
  const name = basename(pathOrName).replace(/[^A-Za-z0-9_-]/g, '_');
  if (!name) throw new CheckpointError(`"${pathOrName}" gives no checkpoint name; end it with a name`);
  return name;
}

/** Writes the pointer into `dir` (created if needed), replacing any earlier one whole. */
export async function writeCheckpointPointer(dir: string, pointer: CheckpointPointer): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${POINTER_FILE}.${process.pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify(pointer, null, 2)}\n`);
  await rename(tmp, join(dir, POINTER_FILE));
}

/**
 * The tinker:// path a local checkpoint directory points to, and the base model it was saved from; a
 * `tinker://` argument is its own answer.
 */
export async function readCheckpointPointer(
  pathOrUri: string,
): Promise<{ tinker_path: string; base_model?: string; sampler_path?: string }> {
  if (pathOrUri.startsWith('tinker://')) return { tinker_path: pathOrUri };
  const file = join(pathOrUri, POINTER_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CheckpointError(
      `checkpoint ${pathOrUri}: no ${POINTER_FILE} (${errorMessage(e)}); a tinker engine checkpoint is a directory written by saveState, or pass its tinker:// path`,
      { cause: e },
    );
  }
  let pointer: Partial<CheckpointPointer>;
  try {
    pointer = JSON.parse(text) as Partial<CheckpointPointer>;
  } catch (e) {
    throw new CheckpointError(`checkpoint ${file}: not valid JSON (${errorMessage(e)})`, { cause: e });
  }
  if (pointer.format !== 'sandgym-tinker-checkpoint' || typeof pointer.tinker_path !== 'string') {
    throw new CheckpointError(
      `checkpoint ${file}: not a tinker checkpoint pointer (format or tinker_path missing)`,
    );
  }
  return {
    tinker_path: pointer.tinker_path,
    base_model: pointer.base_model,
    ...(typeof pointer.sampler_path === 'string' ? { sampler_path: pointer.sampler_path } : {}),
  };
}

/**
 * The parts of a `tinker://<model_id>/<kind>/<name>` path (kind `weights` or `sampler_weights`), as
 * the DELETE of training_runs/<model_id>/checkpoints/<kind>/<name> names them.
 */
export function tinkerPathParts(uri: string): { modelId: string; kind: string; name: string } {
  const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(uri);
  if (!m) throw new CheckpointError(`"${uri}" is not a tinker://<model_id>/weights/<name> path`);
  return { modelId: m[1]!, kind: m[2]!, name: m[3]! };
}
