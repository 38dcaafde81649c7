import { posix } from 'node:path';
import { parseUnifiedDiff } from '../parse-unified-diff.ts';

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The oracle policy's plan: apply a gold patch through the agent's own tools — `file_editor` str_replace per
 * hunk, `create` for new files, `rm` through execute_bash for deleted ones — then `finish`. When this
 * resolves a task, the environment, the tools and the grader agree with each other.
 */
export function oraclePlan(patch: string, repoDir: string, tools: readonly string[]): PlannedCall[] {
  const calls: PlannedCall[] = [];
  for (const file of parseUnifiedDiff(patch)) {
    const path = posix.join(repoDir, file.path);
    if (file.kind === 'create') {
      calls.push({
        name: 'file_editor',
        arguments: { command: 'create', path, file_text: file.hunks.map((h) => h.newText).join('') },
      });
    } else if (file.kind === 'delete') {
      if (tools.includes('execute_bash')) {
        calls.push({ name: 'execute_bash', arguments: { cmd: `rm -f ${shellQuote(path)}` } });
      }
    } else {
      for (const h of file.hunks) {
        // A hunk with no old lines (an insertion into an empty file) has nothing to replace.
        const args =
          h.oldText === ''
            ? { command: 'insert', path, insert_line: 0, new_str: h.newText }
            : { command: 'str_replace', path, old_str: h.oldText, new_str: h.newText };
        calls.push({ name: 'file_editor', arguments: args });
      }
    }
  }
  calls.push({ name: 'finish', arguments: { command: 'submit' } });
  return calls;
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
