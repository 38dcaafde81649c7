/**
 * The valid name a mistyped one most likely meant: the nearest by edit distance, when it is near enough
 * to be a typo (at most a third of the name's length, and at least 1), else undefined.
 */
export function closestName(name: string, valid: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const v of valid) {
    const d = editDistance(name.toLowerCase(), v.toLowerCase());
    if (d < bestDistance) {
      best = v;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** `; did you mean "x"?` when a valid name is near, else nothing. */
export function didYouMean(name: string, valid: readonly string[]): string {
  const near = closestName(name, valid);
  return near === undefined ? '' : `; did you mean "${near}"?`;
}
