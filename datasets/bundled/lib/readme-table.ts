import { DatasetError } from '../../../src/errors.ts';
import { isTestPath } from './diff-trees.ts';
import type { DebugTaskSource, SweTaskSource } from './task-source.ts';

const START = '<!-- tasks:start (written by build.ts) -->';
const END = '<!-- tasks:end -->';

/** The README's task tables, between the markers, rebuilt from the task sources. */
export function spliceTaskTables(
  readme: string,
  swe: readonly SweTaskSource[],
  debug: readonly DebugTaskSource[],
): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start)
    throw new DatasetError(`README.md: the markers ${START} and ${END} are missing`);
  const body = [
    `SWE-bench-style tasks (${swe.length}):`,
    table(
      ['instance_id', 'project', 'kind of bug', 'files fixed', 'summary'],
      swe.map((s) => [
        s.instanceId,
        s.project,
        s.kind,
        [...new Set(s.edits.map((e) => e.path))]
          .filter((p) => !isTestPath(p))
          .map((p) => `\`${p}\``)
          .join(', '),
        s.summary,
      ]),
    ),
    `Single-file debugging tasks (${debug.length}):`,
    table(
      ['task_id', 'kind of bug', 'summary'],
      debug.map((d) => [d.taskId, d.kind, d.summary]),
    ),
  ];
  return `${readme.slice(0, start + START.length)}\n\n${body.join('\n\n')}\n\n${readme.slice(end)}`;
}

/** A Markdown table with padded columns, the layout `biome format` gives, so lint stays clean. */
function table(header: string[], rows: string[][]): string {
  const escaped = rows.map((row) => row.map((cell) => cell.replace(/[|*]/g, (ch) => `\\${ch}`)));
  const widths = header.map((title, i) => Math.max(3, title.length, ...escaped.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...escaped.map(line)].join('\n');
}
