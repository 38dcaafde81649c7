import { fileURLToPath } from 'node:url';
import { BUNDLED } from '../../datasets/bundled/index.ts';
import { ConfigError } from '../errors.ts';
import { downloadHubDataset, hubSettingsFromEnv } from './hub-download.ts';

/** Built-in dataset names: `bundled:<name>`. */
export const BUNDLED_DATASETS: Readonly<Record<string, string>> = {
  swe: BUNDLED.sweJsonl,
  debug: BUNDLED.debugJsonl,
  micro: fileURLToPath(new URL('../../datasets/micro/train.jsonl', import.meta.url)),
  'micro-heldout': fileURLToPath(new URL('../../datasets/micro/heldout.jsonl', import.meta.url)),
};

export interface ResolveOptions {
  /** Where Hub downloads are cached. */
  cacheDir: string;
  signal?: AbortSignal;
}

/**
 * The files behind a dataset spec as users write it: a path (file or directory), `bundled:<name>`, or
 * `hf:<org>/<name>[@<split>]` (downloaded from HF_ENDPOINT with HF_TOKEN, cached).
 */
export async function resolveDatasetSpec(spec: string, options: ResolveOptions): Promise<string[]> {
  if (spec.startsWith('bundled:')) {
    const file = BUNDLED_DATASETS[spec.slice('bundled:'.length)];
    if (!file) {
      const names = Object.keys(BUNDLED_DATASETS).map((n) => `bundled:${n}`);
      throw new ConfigError(
        `dataset "${spec}": no such bundled dataset; bundled datasets: ${names.join(', ')}`,
      );
    }
    return [file];
  }
  if (spec.startsWith('hf:')) {
    const m = /^hf:([^@\s]+\/[^@\s]+)(?:@(\S+))?$/.exec(spec);
    if (!m) throw new ConfigError(`dataset "${spec}": expected hf:<org>/<name> or hf:<org>/<name>@<split>`);
    const settings = hubSettingsFromEnv(process.env);
    return downloadHubDataset({
      repo: m[1]!,
      ...(m[2] ? { split: m[2] } : {}),
      ...settings,
      cacheDir: options.cacheDir,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  return [spec];
}
