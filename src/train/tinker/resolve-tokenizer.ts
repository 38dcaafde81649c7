import { ConfigError } from '../../errors.ts';
import type { EngineTokenizer } from '../engine.ts';
import { ASSETS_DIR, ByteTokenizer } from '../reference/index.ts';
import { loadHfTokenizer } from './hf-engine-tokenizer.ts';

/**
 * The `tokenizer_id` that `sandgym engine serve` reports for the reference models: their byte tokenizer
 * ships with sandgym (src/train/reference/assets/), so a client needs no download.
 */
export const REFERENCE_TOKENIZER_ID = 'sandgym/reference-byte';

export interface ResolvedTokenizer {
  tokenizer: EngineTokenizer;
  /** A local directory with the model's `tokenizer.json` and `tokenizer_config.json`. */
  dir: string;
}

/**
 * Where the client finds the tokenizer of the server's model: `tokenizerDir` when given; the bundled
 * assets for the reference models; otherwise the caller must download it, and the error says how.
 */
export async function resolveTokenizer(
  baseModel: string,
  tokenizerId: string | undefined,
  tokenizerDir: string | undefined,
): Promise<ResolvedTokenizer> {
  if (tokenizerDir) return { tokenizer: await loadHfTokenizer(tokenizerDir), dir: tokenizerDir };
  if (tokenizerId === REFERENCE_TOKENIZER_ID) return { tokenizer: new ByteTokenizer(), dir: ASSETS_DIR };
  const id = tokenizerId || baseModel;
  throw new ConfigError(
    `tinker engine: the server's model "${baseModel}" uses tokenizer "${id}", which sandgym does not bundle; ` +
      `download it (e.g. "huggingface-cli download ${id} tokenizer.json tokenizer_config.json --local-dir <dir>") ` +
      'and pass that directory as tokenizerDir',
  );
}
