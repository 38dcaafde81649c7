import { ConfigError } from '../errors.ts';
import type { Task } from '../tasks/index.ts';

/**
 * The task prompt: the first user message of an episode. Built-in templates per dataset kind say what
 * the problem is, where the code is, and what "done" means; a custom template (a prompt file's
 * `instruction`) may use the same `{{placeholders}}`.
 */

const ISSUE_TEMPLATE = `<issue>
{{problem_statement}}
</issue>

The repository this issue is about is checked out at {{repo_dir}}. Change its source code so that the
behaviour described in the issue is fixed, without breaking anything else. Hidden tests will check your
change after you finish, so you do not need to write tests; changing the existing tests does not help.
Make the smallest change that fixes the issue. When the fix is complete, call finish.`;

const DEBUG_TEMPLATE = `{{problem_statement}}

The program and its tests are in {{repo_dir}}: {{files}}. Read-only (you cannot change them): {{read_only}}.
The tests run with: {{test_command}}
Fix the program so that every test passes, then call finish.`;

const BUILTIN: Record<Task['kind'], string> = {
  swe: ISSUE_TEMPLATE,
  r2e: ISSUE_TEMPLATE,
  debug: DEBUG_TEMPLATE,
};

export const INSTRUCTION_PLACEHOLDERS = [
  'problem_statement',
  'repo_dir',
  'files',
  'read_only',
  'test_command',
  'task_id',
] as const;

export function renderInstruction(task: Task, template: string = BUILTIN[task.kind]): string {
  const values: Record<(typeof INSTRUCTION_PLACEHOLDERS)[number], string> = {
    problem_statement: task.problemStatement.trim(),
    repo_dir: task.test.workdir,
    files: task.kind === 'debug' ? task.files.map((f) => f.path).join(', ') : '',
    read_only: task.kind === 'debug' ? task.readOnly.join(', ') || 'none' : '',
    test_command: task.kind === 'debug' ? task.entrypoint : '',
    task_id: task.id,
  };
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    if (!(name in values)) {
      throw new ConfigError(
        `instruction template: unknown placeholder {{${name}}}; valid: ${INSTRUCTION_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`,
      );
    }
    return values[name as keyof typeof values];
  });
}
