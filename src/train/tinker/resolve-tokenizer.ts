import { existsSync } from 'node:fs';
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

export interface TokenizerChoice {
  baseModel: string;
  /** What get_info's `tokenizer_id` says (hosted Tinker: a Hugging Face id; SkyRL: nothing). */
  serverTokenizerId: string | undefined;
  /** `engine.tinker.tokenizer`: a Hugging Face id or a local model directory. */
  configured: string | undefined;
  /** A Hugging Face id → a local directory with its tokenizer files (downloaded once, then cached). */
  modelDir?: (id: string) => Promise<string>;
}

/**
 * The tokenizer of the server's model. The setting wins, but when the server names a different one the
 * run stops: training with another model's token ids is silently wrong. Without either, the error names
 * the setting to add.
 */
export async function resolveTokenizer(choice: TokenizerChoice): Promise<ResolvedTokenizer> {
  const { baseModel, serverTokenizerId: server, configured } = choice;
  const isDir = configured !== undefined && existsSync(configured);
  if (configured && server && !isDir && configured !== server) {
    throw new ConfigError(
      `engine.tinker.tokenizer is "${configured}", but the server says base model "${baseModel}" uses tokenizer "${server}"; set engine.tinker.tokenizer to "${server}" (or a local copy of it), or leave it unset`,
    );
  }
  const id = configured ?? server;
  if (id === REFERENCE_TOKENIZER_ID) return { tokenizer: new ByteTokenizer(), dir: ASSETS_DIR };
  if (!id) {
    throw new ConfigError(
      `tinker engine: the server does not say which tokenizer base model "${baseModel}" uses; set engine.tinker.tokenizer to its Hugging Face id (e.g. ${baseModel.includes('/') ? baseModel : 'Qwen/Qwen3-8B'}) or a local directory with its tokenizer.json`,
    );
  }
  const dir = isDir ? configured! : await fetchDir(id, choice.modelDir);
  return { tokenizer: await loadHfTokenizer(dir), dir };
}

async function fetchDir(id: string, modelDir: TokenizerChoice['modelDir']): Promise<string> {
  if (modelDir) return modelDir(id);
  throw new ConfigError(
    `tinker engine: tokenizer "${id}" is not a local directory; download it (e.g. "huggingface-cli download ${id} tokenizer.json tokenizer_config.json config.json --local-dir <dir>") and set engine.tinker.tokenizer to <dir>`,
  );
}
