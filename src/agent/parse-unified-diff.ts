/**
 * A unified diff (as `git diff` and SWE-bench's `patch` field write it) split into files and hunks. Only
 * what the oracle policy needs: paths, whether a file is new or deleted, and each hunk's old and new text.
 */
export interface DiffHunk {
  /** The lines the hunk expects (context and removed), each ending in "\n" unless marked otherwise. */
  oldText: string;
  /** The lines after the hunk (context and added). */
  newText: string;
}

export interface FileDiff {
  /** Path relative to the repository root, without the a/ or b/ prefix. */
  path: string;
  kind: 'modify' | 'create' | 'delete';
  hunks: DiffHunk[];
}

function stripPrefix(p: string): string {
  const path = p.split('\t')[0]!.trim();
  return path.startsWith('a/') || path.startsWith('b/') ? path.slice(2) : path;
}

export function parseUnifiedDiff(diff: string): FileDiff[] {
  const files: FileDiff[] = [];
  const lines = diff.split('\n');
  let file: FileDiff | undefined;
  let hunk: DiffHunk | undefined;
  // A hunk's last line may be followed by "\ No newline at end of file": the newline we added is not real.
  let last: 'old' | 'new' | 'both' | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const oldPath = line.slice(4);
      const newPath = lines[i + 1]!.slice(4);
      const created = oldPath.startsWith('/dev/null');
      const deleted = newPath.startsWith('/dev/null');
      file = {
        path: stripPrefix(deleted ? oldPath : newPath),
        kind: created ? 'create' : deleted ? 'delete' : 'modify',
        hunks: [],
      };
      files.push(file);
      hunk = undefined;
      i++;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('@@')) {
      hunk = { oldText: '', newText: '' };
      file.hunks.push(hunk);
      continue;
    }
    if (!hunk) continue;
    if (line.startsWith('\\')) {
      if (last === 'old' || last === 'both') hunk.oldText = hunk.oldText.slice(0, -1);
      if (last === 'new' || last === 'both') hunk.newText = hunk.newText.slice(0, -1);
      continue;
    }
    const body = `${line.slice(1)}\n`;
    if (line.startsWith(' ')) {
      hunk.oldText += body;
      hunk.newText += body;
      last = 'both';
    } else if (line.startsWith('-')) {
      hunk.oldText += body;
      last = 'old';
    } else if (line.startsWith('+')) {
      hunk.newText += body;
      last = 'new';
    } else if (line.startsWith('diff --git') || line === '') {
      hunk = undefined;
    }
  }
  return files;
}
