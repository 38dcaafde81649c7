/**
 * The file editor's text logic, pure: numbering, unique replacement, insertion, and what region an edit
 * changed. Lines are 1-based as editors and pdb count them; a final newline does not start another line.
 */

export function splitLines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** `cat -n` layout: the number right-aligned in 6 columns, a tab, the line. */
export function numberLines(lines: readonly string[], firstLineNumber: number): string {
  return lines.map((line, i) => `${String(firstLineNumber + i).padStart(6)}\t${line}`).join('\n');
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function lineCount(s: string): number {
  return splitLines(s).length;
}

export type Replacement =
  | { kind: 'replaced'; text: string; startLine: number; oldLineCount: number; newLineCount: number }
  /** No verbatim match; `looseMatchLines` start regions that match when whitespace is ignored. */
  | { kind: 'not_found'; looseMatchLines: number[] }
  /** Several matches (overlapping ones count), at these lines. */
  | { kind: 'ambiguous'; lines: number[] };

/** Replaces `oldStr` by `newStr` when it occurs exactly once. */
export function replaceUnique(text: string, oldStr: string, newStr: string): Replacement {
  const offsets: number[] = [];
  for (let i = text.indexOf(oldStr); i !== -1; i = text.indexOf(oldStr, i + 1)) offsets.push(i);
  if (offsets.length === 0) return { kind: 'not_found', looseMatchLines: looseMatches(text, oldStr) };
  if (offsets.length > 1) return { kind: 'ambiguous', lines: offsets.map((o) => lineAt(text, o)) };
  const at = offsets[0]!;
  return {
    kind: 'replaced',
    text: text.slice(0, at) + newStr + text.slice(at + oldStr.length),
    startLine: lineAt(text, at),
    oldLineCount: Math.max(1, lineCount(oldStr)),
    newLineCount: lineCount(newStr),
  };
}

/** Start lines of regions equal to `oldStr` line by line once each line is trimmed: an indentation slip. */
function looseMatches(text: string, oldStr: string): number[] {
  const want = splitLines(oldStr).map((l) => l.trim());
  while (want.length > 0 && want[0] === '') want.shift();
  while (want.length > 0 && want[want.length - 1] === '') want.pop();
  if (want.length === 0) return [];
  const have = splitLines(text).map((l) => l.trim());
  const found: number[] = [];
  for (let i = 0; i + want.length <= have.length; i++) {
    // old_str may start and end mid-line, so its first and last lines need only be part of a line.
    const matches = want.every((w, j) => {
      const edge = j === 0 || j === want.length - 1;
      return edge ? have[i + j]!.includes(w) : have[i + j] === w;
    });
    if (matches) found.push(i + 1);
  }
  return found;
}

export type Insertion =
  | { kind: 'inserted'; text: string; startLine: number; newLineCount: number }
  | { kind: 'out_of_range'; lineCount: number };

/** Inserts `newStr` as whole lines after line `afterLine` (0: at the top). */
export function insertAfter(text: string, afterLine: number, newStr: string): Insertion {
  const lines = splitLines(text);
  if (!Number.isInteger(afterLine) || afterLine < 0 || afterLine > lines.length) {
    return { kind: 'out_of_range', lineCount: lines.length };
  }
  const added = newStr === '' ? [''] : splitLines(newStr);
  lines.splice(afterLine, 0, ...added);
  const finalNewline = text === '' || text.endsWith('\n');
  return {
    kind: 'inserted',
    text: lines.join('\n') + (finalNewline ? '\n' : ''),
    startLine: afterLine + 1,
    newLineCount: added.length,
  };
}

/** The one block of lines that differs between two versions: everything outside it is unchanged. */
export interface ChangedRegion {
  /** First changed line (1-based) in both versions. */
  startLine: number;
  oldLineCount: number;
  newLineCount: number;
}

export function changedRegion(before: string, after: string): ChangedRegion {
  const a = splitLines(before);
  const b = splitLines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return {
    startLine: prefix + 1,
    oldLineCount: a.length - prefix - suffix,
    newLineCount: b.length - prefix - suffix,
  };
}

/** Numbered lines around an edited block, `context` lines either side. */
export function snippet(text: string, startLine: number, lineCount: number, context = 4): string {
  const lines = splitLines(text);
  const from = Math.max(1, startLine - context);
  const to = Math.min(lines.length, startLine + Math.max(lineCount, 1) - 1 + context);
  return numberLines(lines.slice(from - 1, to), from);
}
