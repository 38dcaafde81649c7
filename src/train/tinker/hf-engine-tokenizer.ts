import { Tokenizer } from '@huggingface/tokenizers';
import { ConfigError, errorMessage } from '../../errors.ts';
import { readModelFiles } from '../../llm/index.ts';
import type { EngineTokenizer } from '../engine.ts';

/**
 * The EngineTokenizer of a Hugging Face model directory (`tokenizer.json`, `tokenizer_config.json`,
 * optionally `generation_config.json`): what a remote base model such as Qwen/Qwen3-8B needs on the
 * client. Encoding adds no special tokens (templates write them); decoding keeps them as text.
 */
export async function loadHfTokenizer(dir: string): Promise<EngineTokenizer> {
  const files = await readModelFiles(dir);
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(files.tokenizer, files.tokenizerConfig);
  } catch (e) {
    throw new ConfigError(`${dir}: tokenizer.json cannot be loaded: ${errorMessage(e)}`, { cause: e });
  }
  const added = (files.tokenizer.added_tokens ?? []) as { id: number; content: string; special?: boolean }[];
  const specialTokens = Object.fromEntries(added.filter((t) => t.special).map((t) => [t.content, t.id]));
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    decode: (tokens) =>
      tokens.length === 0
        ? ''
        : tokenizer.decode(tokens, { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    vocabSize: vocabSize(files.tokenizer, added),
    eosTokenId: eosTokenId(dir, tokenizer, files.tokenizerConfig, files.generationConfig),
    specialTokens,
  };
}

/** One past the highest id of the model's vocabulary and the added tokens. */
function vocabSize(json: Record<string, unknown>, added: { id: number }[]): number {
  const vocab = (json.model as { vocab?: unknown } | undefined)?.vocab;
  const ids = Array.isArray(vocab)
    ? vocab.map((_, i) => i) // Unigram: a list of [piece, score]
    : Object.values((vocab ?? {}) as Record<string, number>);
  return Math.max(-1, ...ids, ...added.map((t) => t.id)) + 1;
}

function eosTokenId(
  dir: string,
  tokenizer: Tokenizer,
  config: Record<string, unknown>,
  generation: Record<string, unknown> | undefined,
): number {
  const eos = config.eos_token as string | { content?: string } | null | undefined;
  const text = typeof eos === 'string' ? eos : eos?.content;
  const id = text === undefined ? undefined : tokenizer.token_to_id(text);
  if (id !== undefined) return id;
  const fromGeneration = generation?.eos_token_id;
  const first = Array.isArray(fromGeneration) ? fromGeneration[0] : fromGeneration;
  if (Number.isInteger(first)) return first as number;
  throw new ConfigError(
    `${dir}: no end-of-sequence token; tokenizer_config.json has no eos_token and generation_config.json no eos_token_id`,
  );
}
