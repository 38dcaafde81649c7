import { join } from 'node:path';
import { HttpError } from './http-error.ts';
import { CHECKPOINT_NAME } from './request-schemas.ts';

/** `weights`: training state (save_weights); `sampler_weights`: weights only (save_weights_for_sampler). */
export type CheckpointKind = 'weights' | 'sampler_weights';

export interface CheckpointRef {
  modelId: string;
  kind: CheckpointKind;
  name: string;
}

/** `tinker://<model_id>/<kind>/<name>`, the form Tinker and SkyRL tx answer saves with. */
export function formatTinkerPath(ref: CheckpointRef): string {
  return `tinker://${ref.modelId}/${ref.kind}/${ref.name}`;
}

/**
 * A tinker:// path as a checkpoint reference. Also accepts SkyRL's short sampler form
 * `tinker://<model_id>/<name>`. Every part must be a plain name, so no path leaves the weights dir.
 */
export function parseTinkerPath(uri: string, expected: CheckpointKind): CheckpointRef {
  const parts = uri.startsWith('tinker://') ? uri.slice('tinker://'.length).split('/') : [];
  const [modelId, kindOrName, name] = parts;
  const ref: CheckpointRef | undefined =
    parts.length === 3 && (kindOrName === 'weights' || kindOrName === 'sampler_weights')
      ? { modelId: modelId!, kind: kindOrName, name: name! }
      : parts.length === 2 && expected === 'sampler_weights'
        ? { modelId: modelId!, kind: 'sampler_weights', name: kindOrName! }
        : undefined;
  if (!ref || !CHECKPOINT_NAME.test(ref.modelId) || !CHECKPOINT_NAME.test(ref.name)) {
    throw new HttpError(
      400,
      `"${uri}" is not a checkpoint path; expected tinker://<model_id>/${expected}/<name>`,
    );
  }
  if (ref.kind !== expected) {
    throw new HttpError(
      400,
      `"${uri}" holds ${ref.kind === 'weights' ? 'training state' : 'sampler weights'}; this request needs tinker://<model_id>/${expected}/<name>`,
    );
  }
  return ref;
}

/** Where the server keeps a checkpoint: `<weightsDir>/<model_id>/<kind>/<name>`. */
export function checkpointDir(weightsDir: string, ref: CheckpointRef): string {
  return join(weightsDir, ref.modelId, ref.kind, ref.name);
}
