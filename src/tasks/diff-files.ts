/**
 * The files a unified diff touches (git's extended format or plain `diff -u`), read from its headers.
 * Hunk bodies are skipped by their line counts, so a removed line that itself starts with "-- " is never
 * taken for a header.
 */

export interface DiffFile {
  /** Path before the change, without the `a/` prefix; null when the diff creates the file. */
  oldPath: string | null;
  /** Path after the change, without the `b/` prefix; null when the diff deletes the file. */
  newPath: string | null;
}

/** The file a section is about: its new path, or the old one for a deletion. */
export function diffFilePath(file: DiffFile): string {
  return (file.newPath ?? file.oldPath)!;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

export function diffFiles(patch: string): DiffFile[] {
  const lines = patch.split('\n');
  const files: DiffFile[] = [];
  let current: DiffFile | undefined;
  // A plain diff has no "diff --git" lines: each "---"/"+++" pair after the first starts a new file.
  let currentHasHeaders = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('diff --git ')) {
      current = parseGitHeader(line.slice('diff --git '.length));
      currentHasHeaders = false;
      files.push(current);
    } else if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      if (!current || currentHasHeaders) {
        current = { oldPath: null, newPath: null };
        files.push(current);
      }
      current.oldPath = headerPath(line.slice(4));
      current.newPath = headerPath(lines[i + 1]!.slice(4));
      currentHasHeaders = true;
      i++;
    } else if (current && line.startsWith('new file mode')) {
      current.oldPath = null;
    } else if (current && line.startsWith('deleted file mode')) {
      current.newPath = null;
    } else if (current && line.startsWith('rename from ')) {
      current.oldPath = unquote(line.slice('rename from '.length));
    } else if (current && line.startsWith('rename to ')) {
      current.newPath = unquote(line.slice('rename to '.length));
    } else {
      const hunk = HUNK.exec(line);
      if (hunk) i = skipHunk(lines, i, Number(hunk[1] ?? 1), Number(hunk[2] ?? 1));
    }
  }
  return files;
}

/** Index of the hunk's last line: old-side lines are ' ' and '-', new-side lines ' ' and '+'. */
function skipHunk(lines: readonly string[], start: number, oldCount: number, newCount: number): number {
  let i = start;
  while ((oldCount > 0 || newCount > 0) && i + 1 < lines.length) {
    const next = lines[i + 1]!;
    const mark = next[0];
    if (mark === ' ' || next === '') {
      oldCount--;
      newCount--;
    } else if (mark === '-') oldCount--;
    else if (mark === '+') newCount--;
    else if (mark !== '\\') break;
    i++;
  }
  return i;
}

/** `a/x b/x` from a `diff --git` line; paths with spaces are unquoted there, so prefer equal halves. */
function parseGitHeader(rest: string): DiffFile {
  if (rest.startsWith('"')) {
    const [first, second] = splitQuoted(rest);
    return { oldPath: stripPrefix(first), newPath: stripPrefix(second) };
  }
  const candidates: number[] = [];
  for (let at = rest.indexOf(' b/'); at !== -1; at = rest.indexOf(' b/', at + 1)) candidates.push(at);
  const same = candidates.find((at) => rest.slice(2, at) === rest.slice(at + 3));
  const at = same ?? candidates[0];
  if (at === undefined) return { oldPath: stripPrefix(rest), newPath: stripPrefix(rest) };
  return { oldPath: stripPrefix(rest.slice(0, at)), newPath: stripPrefix(unquote(rest.slice(at + 1))) };
}

function splitQuoted(rest: string): [string, string] {
  let i = 1;
  while (i < rest.length && rest[i] !== '"') i += rest[i] === '\\' ? 2 : 1;
  return [unquote(rest.slice(0, i + 1)), unquote(rest.slice(i + 1).trim())];
}

/** A `---`/`+++` header's path: /dev/null is null; a tab starts the optional timestamp. */
function headerPath(value: string): string | null {
  const path = unquote(value.split('\t')[0]!.trimEnd());
  return path === '/dev/null' ? null : stripPrefix(path);
}

function stripPrefix(path: string): string {
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  '"': '"',
  '\\': '\\',
  a: '\x07',
  b: '\b',
  f: '\f',
  r: '\r',
  v: '\v',
};

/** Git quotes unusual paths C-style, non-ASCII bytes as octal escapes of their UTF-8 encoding. */
function unquote(value: string): string {
  if (!(value.startsWith('"') && value.endsWith('"') && value.length >= 2)) return value;
  const bytes: number[] = [];
  const body = value.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(...Buffer.from(ESCAPES[body[i + 1]!] ?? body[i + 1]!, 'utf8'));
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
