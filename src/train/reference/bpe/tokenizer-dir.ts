import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineInputError } from '../../errors.ts';
import { ASSETS_DIR } from '../build-assets.ts';
import { byteTokenizerJson, byteToUnicode } from '../byte-tokenizer.ts';
import { BpeTokenizer, FIRST_MERGE_ID, type Merge } from './bpe-tokenizer.ts';

/** The tokenizer as a Hugging Face tokenizer.json: the byte tokenizer's, plus the merges and their tokens. */
export function bpeTokenizerJson(merges: readonly Merge[]): Record<string, unknown> {
  const json = byteTokenizerJson() as {
    model: { vocab: Record<string, number>; merges: [string, string][] };
  };
  const strings = byteToUnicode();
  const text = (id: number) => strings[id]!;
  merges.forEach(([a, b], rank) => {
    const s = text(a) + text(b);
    strings[FIRST_MERGE_ID + rank] = s;
    json.model.vocab[s] = FIRST_MERGE_ID + rank;
    json.model.merges.push([text(a), text(b)]);
  });
  return json;
}

/** A model directory for the token-level sampler: tokenizer.json with the merges, the chat template. */
export function writeBpeTokenizerDir(dir: string, merges: readonly Merge[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokenizer.json'), `${JSON.stringify(bpeTokenizerJson(merges))}\n`);
  copyFileSync(join(ASSETS_DIR, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
}

/** The BPE of a directory written by `writeBpeTokenizerDir`. */
export function readBpeTokenizerDir(dir: string): BpeTokenizer {
  let json: { model?: { merges?: [string, string][] | string[] } };
  try {
    json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
  } catch (e) {
    throw new EngineInputError(`tokenizer dir ${dir}: cannot read tokenizer.json (${(e as Error).message})`);
  }
  const strings = byteToUnicode();
  const idOf = new Map(strings.map((s, i) => [s, i]));
  const merges: Merge[] = (json.model?.merges ?? []).map((m, rank) => {
    const [a, b] = typeof m === 'string' ? (m.split(' ') as [string, string]) : m;
    const ia = idOf.get(a);
    const ib = idOf.get(b);
    if (ia === undefined || ib === undefined) {
      throw new EngineInputError(
        `tokenizer dir ${dir}: merge ${rank} uses a token not made by earlier merges`,
      );
    }
    idOf.set(a + b, FIRST_MERGE_ID + rank);
    return [ia, ib] as const;
  });
  return new BpeTokenizer(merges);
}
