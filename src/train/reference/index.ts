export { BpeTokenizer, FIRST_MERGE_ID, type Merge } from './bpe/bpe-tokenizer.ts';
export { bpeTokenizerJson, readBpeTokenizerDir, writeBpeTokenizerDir } from './bpe/tokenizer-dir.ts';
export { trainBpe } from './bpe/train-bpe.ts';
export { ASSETS_DIR } from './build-assets.ts';
export { ByteTokenizer, SPECIAL_TOKENS } from './byte-tokenizer.ts';
export { CHAT_TEMPLATE } from './chat-template.ts';
export {
  BYTE_VOCAB_SIZE,
  MODEL_PRESETS,
  type ModelConfig,
  type ModelPreset,
  modelConfigFromSection,
  parameterCount,
} from './model-config.ts';
export { ReferenceEngine, type ReferenceEngineOptions } from './reference-engine.ts';
