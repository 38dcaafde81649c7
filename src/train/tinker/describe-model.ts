import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../errors.ts';
import type { EngineInfo } from '../engine.ts';
import type { GetInfoResponse, GetServerCapabilitiesResponse } from './protocol.ts';

/**
 * The base model to train: the one asked for, which the server must list, or the server's only model.
 */
export function chooseBaseModel(
  requested: string | undefined,
  capabilities: GetServerCapabilitiesResponse,
  baseUrl: string,
): string {
  const names = (capabilities?.supported_models ?? []).map((m) => m?.model_name).filter(Boolean) as string[];
  if (requested) {
    if (names.length > 0 && !names.includes(requested)) {
      throw new ConfigError(
        `tinker engine: ${baseUrl} does not serve base model "${requested}"; it serves ${names.join(', ')}`,
      );
    }
    return requested;
  }
  if (names.length === 1) return names[0]!;
  throw new ConfigError(
    names.length === 0
      ? `tinker engine: ${baseUrl} lists no models; name the base model to train (baseModel)`
      : `tinker engine: ${baseUrl} serves several models (${names.join(', ')}); choose one as baseModel`,
  );
}

/**
 * The engine's description of a server model. get_info names the model and its tokenizer; `sandgym
 * engine serve` also gives the vocabulary, context and parameter count; hosted Tinker gives the context
 * through its capabilities; SkyRL gives neither, so the context comes from `engine.tinker.max_context_tokens`
 * or the model's config.json beside its tokenizer. The vocabulary falls back to the tokenizer's, the
 * parameter count to 0 (unknown).
 */
export function describeModel(
  baseModel: string,
  info: GetInfoResponse,
  capabilities: GetServerCapabilitiesResponse,
  tokenizer: { vocabSize: number; dir: string },
  configuredContext?: number,
): EngineInfo {
  const data = info?.model_data ?? {};
  const listed = capabilities?.supported_models?.find((m) => m?.model_name === baseModel);
  const context =
    configuredContext ??
    positive(data.max_context_length) ??
    positive(listed?.max_context_length) ??
    modelConfigContext(tokenizer.dir);
  if (context === undefined) {
    throw new ConfigError(
      `tinker engine: the server does not say how long a sequence base model "${baseModel}" takes, and ${tokenizer.dir} has no config.json with max_position_embeddings; set engine.tinker.max_context_tokens (e.g. 32768 for Qwen3)`,
    );
  }
  return {
    model_name: baseModel,
    vocab_size: positive(data.vocab_size) ?? tokenizer.vocabSize,
    max_seq_len: context,
    param_count: positive(data.param_count) ?? 0,
    tokenizer_dir: tokenizer.dir,
  };
}

/** `max_position_embeddings` of a Hugging Face model's config.json in `dir`, if there is one. */
export function modelConfigContext(dir: string): number | undefined {
  let config: { max_position_embeddings?: unknown; text_config?: { max_position_embeddings?: unknown } };
  try {
    config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  } catch {
    return undefined;
  }
  return positive(config?.max_position_embeddings) ?? positive(config?.text_config?.max_position_embeddings);
}

function positive(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
