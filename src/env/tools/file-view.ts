import type { ToolContext } from '../types.ts';
import { readText, runHelper } from './sandbox-files.ts';
import { numberLines, splitLines } from './text-edits.ts';

/** `view` of a file: numbered lines, all of them or `viewRange` [start, end] (end -1: to the end). */
export async function viewFile(
  ctx: ToolContext,
  path: string,
  viewRange: number[] | undefined,
): Promise<string> {
  const read = await readText(ctx, path);
  if (!read.ok) return `Cannot show ${read.reason}; inspect it with execute_bash (e.g. file, head -c, xxd).`;
  const lines = splitLines(read.text);
  if (lines.length === 0) return `${path} is empty.`;
  if (viewRange === undefined) {
    return `Here's the result of running \`cat -n\` on ${path}:\n${numberLines(lines, 1)}\n`;
  }
  const range = checkRange(viewRange, lines.length);
  if (typeof range === 'string') return `Invalid view_range ${JSON.stringify(viewRange)}: ${range}`;
  const [start, end] = range;
  const note = viewRange[1]! > lines.length ? ` (the file has ${lines.length} lines)` : '';
  return (
    `Here's the result of running \`cat -n\` on ${path}, lines ${start}-${end}${note}:\n` +
    `${numberLines(lines.slice(start - 1, end), start)}\n`
  );
}

/** A valid 1-based inclusive range, clamping an end past the last line; or what is wrong with it. */
export function checkRange(viewRange: number[], lineCount: number): [number, number] | string {
  if (viewRange.length !== 2) return 'give two line numbers, [start, end]';
  const [start, end] = viewRange as [number, number];
  if (start < 1 || start > lineCount) return `start must be between 1 and ${lineCount}, the file's last line`;
  if (end === -1) return [start, lineCount];
  if (end < start) return `end must be -1 (to the end of the file) or at least start (${start})`;
  return [start, Math.min(end, lineCount)];
}

// Entries below `$1` down to two levels, hidden ones (and everything under them) left out; directories
// get a trailing slash.
const LIST_SCRIPT = `find "$1" -mindepth 1 -maxdepth 2 -name '.*' -prune -o -type d -print | sed 's|$|/|'
find "$1" -mindepth 1 -maxdepth 2 -name '.*' -prune -o ! -type d -print`;

/** `view` of a directory: its files and directories two levels deep, hidden ones excluded. */
export async function viewDirectory(ctx: ToolContext, dir: string): Promise<string> {
  const r = await runHelper(ctx, ['sh', '-c', LIST_SCRIPT, 'sh', dir]);
  if (r.exitCode !== 0) return `Cannot list ${dir}: ${r.stderr.trim()}`;
  const entries = r.stdout.split('\n').filter((l) => l !== '');
  const key = (e: string) => e.replace(/\/$/, '');
  entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const body = entries.length > 0 ? entries.join('\n') : '(empty)';
  return `Files and directories up to 2 levels deep in ${dir}, hidden ones excluded:\n${body}\n`;
}
