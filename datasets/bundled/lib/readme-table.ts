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
  return `${readme.slice(0, start + START.length)}\n${renderTables(swe, debug)}${readme.slice(end)}`;
}

function renderTables(swe: readonly SweTaskSource[], debug: readonly DebugTaskSource[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    '',
    `SWE-bench-style tasks (${swe.length}):`,
    '',
    '| instance_id | project | kind of bug | files fixed | summary |',
    '| --- | --- | --- | --- | --- |',
    ...swe.map((s) => {
      const files = [...new Set(s.edits.map((e) => e.path))].filter((p) => !isTestPath(p));
      return `| ${s.instanceId} | ${s.project} | ${s.kind} | ${files.map((f) => `\`${f}\``).join(', ')} | ${cell(s.summary)} |`;
    }),
    '',
    `Single-file debugging tasks (${debug.length}):`,
    '',
    '| task_id | kind of bug | summary |',
    '| --- | --- | --- |',
    ...debug.map((d) => `| ${d.taskId} | ${d.kind} | ${cell(d.summary)} |`),
    '',
  ];
  return `${lines.join('\n')}\n`;
}
