import type { EngineTokenizer } from '../../engine.ts';
import { SPECIAL_TOKENS } from '../special-tokens.ts';

/** A merge: two token ids that become the token `256 + SPECIAL_TOKENS.length + rank`. */
export type Merge = readonly [number, number];

/** The first id of a merged token: after the 256 bytes and the specials, which keep their ids. */
export const FIRST_MERGE_ID = 256 + SPECIAL_TOKENS.length;

const SPECIAL_PATTERN = new RegExp(SPECIAL_TOKENS.map((t) => t.replace(/[|]/g, '\\|')).join('|'), 'g');

/** Text split at special tokens: byte runs and special ids, in order. */
export function splitSpecials(text: string): (number[] | number)[] {
  const encoder = new TextEncoder();
  const parts: (number[] | number)[] = [];
  let last = 0;
  for (const m of text.matchAll(SPECIAL_PATTERN)) {
    if (m.index > last) parts.push([...encoder.encode(text.slice(last, m.index))]);
    parts.push(256 + SPECIAL_TOKENS.indexOf(m[0] as (typeof SPECIAL_TOKENS)[number]));
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push([...encoder.encode(text.slice(last))]);
  return parts;
}

/**
 * A byte-level BPE over the reference model's byte tokenizer: ids 0–255 are bytes, the four specials keep
 * 256–259, merged tokens follow. Encoding applies merges lowest rank first, each over its occurrences
 * left to right — the order Hugging Face's BPE model applies them, so both give the same ids (tested).
 */
export class BpeTokenizer implements EngineTokenizer {
  readonly vocabSize: number;
  readonly eosTokenId = 256;
  readonly specialTokens: Readonly<Record<string, number>> = Object.fromEntries(
    SPECIAL_TOKENS.map((t, i) => [t, 256 + i]),
  );
  private readonly ranks = new Map<number, number>();
  private readonly bytesOf: Uint8Array[] = [];
  private readonly decoder = new TextDecoder('utf-8');

  constructor(readonly merges: readonly Merge[]) {
    this.vocabSize = FIRST_MERGE_ID + merges.length;
    for (let b = 0; b < 256; b++) this.bytesOf.push(Uint8Array.of(b));
    for (let i = 0; i < SPECIAL_TOKENS.length; i++) this.bytesOf.push(new Uint8Array());
    merges.forEach(([a, b], rank) => {
      if (a >= FIRST_MERGE_ID + rank || b >= FIRST_MERGE_ID + rank || (a >= 256 && a < FIRST_MERGE_ID)) {
        throw new RangeError(`merge ${rank} (${a}, ${b}) refers to a token that does not exist yet`);
      }
      this.ranks.set(a * this.vocabSize + b, rank);
      this.bytesOf.push(Uint8Array.from([...this.bytesOf[a]!, ...this.bytesOf[b]!]));
    });
  }

  encode(text: string): number[] {
    return splitSpecials(text).flatMap((part) => (typeof part === 'number' ? [part] : this.mergeBytes(part)));
  }

  /** Applies the merges to one run of bytes. */
  mergeBytes(bytes: readonly number[]): number[] {
    let ids = [...bytes];
    if (this.merges.length === 0) return ids;
    for (;;) {
      let best = -1;
      for (let i = 0; i + 1 < ids.length; i++) {
        const rank = this.ranks.get(ids[i]! * this.vocabSize + ids[i + 1]!);
        if (rank !== undefined && (best < 0 || rank < best)) best = rank;
      }
      if (best < 0) return ids;
      const [a, b] = this.merges[best]!;
      const merged: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) {
          merged.push(FIRST_MERGE_ID + best);
          i++;
        } else merged.push(ids[i]!);
      }
      ids = merged;
    }
  }

  decode(tokens: number[]): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) out += this.decoder.decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const t of tokens) {
      const b = t < 256 || t >= FIRST_MERGE_ID ? this.bytesOf[t] : undefined;
      if (b) for (const x of b) bytes.push(x);
      else {
        // A special, or an id outside the vocabulary (which reads as nothing), ends a UTF-8 byte run.
        flush();
        out += SPECIAL_TOKENS[t - 256] ?? '';
      }
    }
    flush();
    return out;
  }
}
