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
 * engine serve` also gives the vocabulary, context and parameter count; other servers give the context
 * through their capabilities, the vocabulary through the tokenizer, and no parameter count (then 0).
 * A context of 0 means the server did not say.
 */
export function describeModel(
  baseModel: string,
  info: GetInfoResponse,
  capabilities: GetServerCapabilitiesResponse,
  tokenizer: { vocabSize: number; dir: string },
): EngineInfo {
  const data = info?.model_data ?? {};
  const listed = capabilities?.supported_models?.find((m) => m?.model_name === baseModel);
  return {
    model_name: baseModel,
    vocab_size: positive(data.vocab_size) ?? tokenizer.vocabSize,
    max_seq_len: positive(data.max_context_length) ?? positive(listed?.max_context_length) ?? 0,
    param_count: positive(data.param_count) ?? 0,
    tokenizer_dir: tokenizer.dir,
  };
}

function positive(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
