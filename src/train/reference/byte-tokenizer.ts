import { BpeTokenizer } from './bpe/bpe-tokenizer.ts';
import { SPECIAL_TOKENS } from './special-tokens.ts';

export { SPECIAL_TOKENS };

/**
 * The reference model's tokenizer: token b < 256 is the byte b of the UTF-8 text, then the special tokens
 * (256 <|endoftext|>, 257 <|im_start|>, 258 <|im_end|>, 259 <|pad|>). Special tokens are recognized in
 * the text, as Hugging Face tokenizers do for added special tokens; assets/tokenizer.json describes the
 * same mapping for @huggingface/tokenizers. It is the byte-level BPE with no merges.
 */
export class ByteTokenizer extends BpeTokenizer {
  constructor() {
    super([]);
  }
}

/**
 * The same tokenizer as a Hugging Face tokenizer.json: a byte-level BPE with no merges (so every byte is
 * one token), GPT-2's byte-to-character alphabet for the 256 byte tokens, and the specials as added tokens.
 */
export function byteTokenizerJson(): Record<string, unknown> {
  const alphabet = byteToUnicode();
  const vocab: Record<string, number> = {};
  alphabet.forEach((ch, b) => {
    vocab[ch] = b;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, i) => ({
      id: 256 + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: [],
    },
  };
}

/**
 * GPT-2's reversible map from bytes to printable characters: printable Latin-1 bytes map to themselves,
 * the others to U+0100 onwards, so byte-level vocabularies have no whitespace or control characters.
 */
export function byteToUnicode(): string[] {
  const printable = (b: number) =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) out.push(String.fromCodePoint(printable(b) ? b : next++));
  return out;
}
