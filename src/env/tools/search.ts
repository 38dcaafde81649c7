import type { ToolSpec } from '../../llm/types.ts';
import type { Tool, ToolContext, ToolResult } from '../types.ts';
import { resolvePath, runHelper, statPath } from './sandbox-files.ts';

const SPEC: ToolSpec = {
  type: 'function',
  function: {
    name: 'search',
    description: [
      'Search the repository.',
      '* mode "content" (default): files under path that contain search_term (literal text, not a regular',
      '  expression), with match counts; when path is a file, its matching lines with line numbers.',
      '* mode "filename": files under path whose name contains search_term, or matches it as a glob (*.py).',
      'Hidden directories (.git) and binary files are skipped. Too many results ask for a narrower search.',
    ].join('\n'),
    parameters: {
      type: 'object',
      properties: {
        search_term: { type: 'string', description: 'The text (or file-name glob) to look for.' },
        path: { type: 'string', description: 'File or directory to search; default: the repository.' },
        mode: {
          type: 'string',
          enum: ['content', 'filename'],
          description: 'What to match; default content.',
        },
      },
      required: ['search_term'],
      additionalProperties: false,
    },
  },
};

/** Files listed at most; R2E-Gym's search stops at the same number. */
export const MAX_FILES = 100;
/** Matching lines shown at most when searching one file. */
export const MAX_LINES = 100;

// Counts per file (`path:count`), skipping binary files and hidden directories (but not a hidden directory
// searched on purpose: grep would skip the command-line one too); grep exits 1 on no match.
const COUNT_SCRIPT = `set -f; case "$(basename "$2")" in .*) x= ;; *) x='--exclude-dir=.*' ;; esac
grep -rIcF $x -- "$1" "$2" | grep -v ':0$'; exit 0`;
const FILE_SCRIPT = `grep -nIF -- "$1" "$2"; [ $? -le 1 ]`;
const NAME_SCRIPT = `find "$2" -name '.*' ! -path "$2" -prune -o -type f -name "$1" -print | head -n ${MAX_FILES + 1}`;

/** R2E-Gym's `search`: a term in a file or a directory tree, and a file-name search; results capped. */
export class Search implements Tool {
  readonly spec = SPEC;

  async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const term = args.search_term as string;
    if (term === '') return { observation: 'search_term is empty; give the text to look for.' };
    const path = resolvePath(ctx.repoDir, (args.path as string | undefined) ?? ctx.repoDir);
    const { kind } = await statPath(ctx, path);
    if (kind === 'missing') return { observation: `${path} does not exist.` };
    if (args.mode === 'filename') {
      if (kind !== 'directory')
        return { observation: `A file-name search needs a directory; ${path} is not one.` };
      return { observation: await searchNames(ctx, term, path) };
    }
    return {
      observation: kind === 'file' ? await searchFile(ctx, term, path) : await searchTree(ctx, term, path),
    };
  }
}

async function searchTree(ctx: ToolContext, term: string, dir: string): Promise<string> {
  const r = await runHelper(ctx, ['sh', '-c', COUNT_SCRIPT, 'sh', term, dir]);
  const hits = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const colon = line.lastIndexOf(':');
      return { file: line.slice(0, colon), count: Number(line.slice(colon + 1)) };
    });
  if (hits.length === 0) return `No matches found for "${term}" in ${dir}.`;
  if (hits.length > MAX_FILES) {
    return `More than ${MAX_FILES} files matched "${term}" in ${dir}. Please narrow your search: a longer term or a subdirectory.`;
  }
  hits.sort((a, b) => (a.file < b.file ? -1 : 1));
  const total = hits.reduce((n, h) => n + h.count, 0);
  const lines = hits.map((h) => `${h.file} (${h.count} ${h.count === 1 ? 'match' : 'matches'})`);
  return `Found ${total} matches for "${term}" in ${dir}:\n${lines.join('\n')}\nSearch a file to see its matching lines.`;
}

async function searchFile(ctx: ToolContext, term: string, file: string): Promise<string> {
  const r = await runHelper(ctx, ['sh', '-c', FILE_SCRIPT, 'sh', term, file]);
  if (r.exitCode !== 0) return `Cannot search ${file}: ${r.stderr.trim()}`;
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  if (lines.length === 0) return `No matches found for "${term}" in ${file}.`;
  if (lines.length > MAX_LINES) {
    return (
      `${lines.length} lines of ${file} match "${term}"; the first ${MAX_LINES}:\n` +
      `${lines.slice(0, MAX_LINES).join('\n')}\nPlease narrow your search to see the rest.`
    );
  }
  return `Matches for "${term}" in ${file}:\n${lines.join('\n')}`;
}

async function searchNames(ctx: ToolContext, term: string, dir: string): Promise<string> {
  const glob = /[*?[]/.test(term) ? term : `*${term}*`;
  const r = await runHelper(ctx, ['sh', '-c', NAME_SCRIPT, 'sh', glob, dir]);
  const files = r.stdout.split('\n').filter((l) => l !== '');
  if (files.length === 0) return `No files named like "${glob}" in ${dir}.`;
  if (files.length > MAX_FILES) {
    return `More than ${MAX_FILES} files named like "${glob}" in ${dir}. Please narrow your search.`;
  }
  files.sort();
  return `Files named like "${glob}" in ${dir}:\n${files.join('\n')}`;
}
