import type { EngineTokenizer } from '../engine.ts';

/** The special tokens after the 256 byte tokens, in id order. */
export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|pad|>'] as const;

/**
 * The reference model's tokenizer: token b < 256 is the byte b of the UTF-8 text, then the special tokens
 * (256 <|endoftext|>, 257 <|im_start|>, 258 <|im_end|>, 259 <|pad|>). Special tokens are recognized in
 * the text, as Hugging Face tokenizers do for added special tokens; assets/tokenizer.json describes the
 * same mapping for @huggingface/tokenizers.
 */
export class ByteTokenizer implements EngineTokenizer {
  readonly vocabSize = 256 + SPECIAL_TOKENS.length;
  readonly specialTokens: Readonly<Record<string, number>> = Object.fromEntries(
    SPECIAL_TOKENS.map((t, i) => [t, 256 + i]),
  );
  readonly eosTokenId = 256;
  private readonly specialPattern = new RegExp(
    SPECIAL_TOKENS.map((t) => t.replace(/[|]/g, '\\|')).join('|'),
    'g',
  );
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');

  encode(text: string): number[] {
    const ids: number[] = [];
    let last = 0;
    for (const m of text.matchAll(this.specialPattern)) {
      for (const b of this.encoder.encode(text.slice(last, m.index))) ids.push(b);
      ids.push(this.specialTokens[m[0]]!);
      last = m.index + m[0].length;
    }
    for (const b of this.encoder.encode(text.slice(last))) ids.push(b);
    return ids;
  }

  /** Invalid UTF-8 byte runs decode to U+FFFD, as in every byte-level tokenizer. */
  decode(tokens: number[]): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) out += this.decoder.decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const t of tokens) {
      if (t < 256) bytes.push(t);
      else {
        flush();
        out += SPECIAL_TOKENS[t - 256] ?? '';
      }
    }
    flush();
    return out;
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
