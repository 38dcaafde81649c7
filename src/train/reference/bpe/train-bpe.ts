import { FIRST_MERGE_ID, type Merge, splitSpecials } from './bpe-tokenizer.ts';

/**
 * Learns `numMerges` byte-pair merges from a corpus: the most frequent adjacent pair becomes a new token,
 * again and again (ties go to the smaller pair of ids, so the result depends only on the corpus). Special
 * tokens never merge; merges may span whitespace and newlines, which for tool-call markup is what makes
 * sequences short (`</parameter>\n` becomes one token). Stops early when no pair occurs twice.
 */
export function trainBpe(corpus: readonly string[], numMerges: number): Merge[] {
  const seqs: number[][] = corpus.flatMap((text) =>
    splitSpecials(text).filter((p): p is number[] => typeof p !== 'number'),
  );
  const merges: Merge[] = [];
  const key = (a: number, b: number) => a * 1_000_003 + b;
  for (let m = 0; m < numMerges; m++) {
    const counts = new Map<number, number>();
    for (const s of seqs) {
      for (let i = 0; i + 1 < s.length; i++) {
        const k = key(s[i]!, s[i + 1]!);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
    let bestKey = -1;
    let bestCount = 1;
    for (const [k, c] of counts)
      if (c > bestCount || (c === bestCount && c > 1 && k < bestKey)) [bestKey, bestCount] = [k, c];
    if (bestKey < 0) break;
    const a = Math.floor(bestKey / 1_000_003);
    const b = bestKey % 1_000_003;
    const id = FIRST_MERGE_ID + merges.length;
    merges.push([a, b]);
    for (let j = 0; j < seqs.length; j++) {
      const s = seqs[j]!;
      const out: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(id);
          i++;
        } else out.push(s[i]!);
      }
      seqs[j] = out;
    }
  }
  return merges;
}
