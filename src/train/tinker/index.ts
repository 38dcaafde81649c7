/**
 * The `tinker` training engine: a client of the Tinker API's JSON protocol (hosted Tinker, SkyRL tx,
 * or `sandgym engine serve`), and that protocol's wire types, which the server shares.
 */
export { type CheckpointPointer, checkpointName, POINTER_FILE } from './checkpoint-pointer.ts';
export { loadHfTokenizer } from './hf-engine-tokenizer.ts';
export { parsePassData } from './parse-pass-data.ts';
export * from './protocol.ts';
export { REFERENCE_TOKENIZER_ID } from './resolve-tokenizer.ts';
export {
  isRetryableStatus,
  isTinkerApiError,
  TinkerApiError,
  type TinkerApiErrorKind,
} from './tinker-api-error.ts';
export { TinkerEngine } from './tinker-engine.ts';
export { type TinkerEngineOptions, tinkerOptionsFromConfig } from './tinker-engine-options.ts';
