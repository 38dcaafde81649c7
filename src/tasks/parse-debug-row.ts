import { posix } from 'node:path';
import { z } from 'zod';
import { jsonObject, optionalText, requiredText, stringList } from './cells.ts';
import type { DebugFile, DebugTask, TestSpec } from './types.ts';

/**
 * A single-file debugging task in SWE-PDB's layout (KodCode- and AceCode-derived rows): task_id,
 * problem_statement, prompt, and extra_info {entrypoint, files: [{path, content}], task_name}. extra_info
 * and files may be JSON strings. sandgym's bundled rows add a gold `patch` and the test lists.
 */
const fileSchema = z.object({
  path: requiredText.refine(isSafeRelativePath, { error: 'expected a relative path inside the task' }),
  content: z.string({ error: 'expected the file content as a string' }),
});

const debugRowSchema = z.looseObject({
  task_id: requiredText,
  problem_statement: requiredText,
  extra_info: jsonObject(
    z.looseObject({
      entrypoint: optionalText,
      files: jsonObject(z.array(fileSchema, { error: 'expected a list of {path, content}' }).min(1)),
      task_name: optionalText,
    }),
  ),
  image: optionalText,
  patch: optionalText,
  FAIL_TO_PASS: stringList.optional(),
  PASS_TO_PASS: stringList.optional(),
});

/** SWE-PDB's entrypoint when a row has none. */
export const DEFAULT_DEBUG_ENTRYPOINT = 'python -m pytest --tb=no -s test.py';

/**
 * The image debugging tasks run in unless the row names one: sandgym's base image (Debian bookworm with
 * python3 and pytest, built by the sandbox module), like SWE-PDB's python-with-pytest image.
 */
export const DEFAULT_DEBUG_IMAGE = 'sandgym/base:latest';

// Debian has `python3` but no `python`; SWE-PDB's entrypoints say `python`.
const PYTHON_SHIM = 'command -v python >/dev/null 2>&1 || python() { python3 "$@"; }';

export function parseDebugRow(row: Record<string, unknown>, options: { image?: string } = {}): DebugTask {
  const r = debugRowSchema.parse(row);
  const files: DebugFile[] = r.extra_info.files;
  const entrypoint = r.extra_info.entrypoint || DEFAULT_DEBUG_ENTRYPOINT;
  const test: TestSpec = {
    workdir: '/testbed',
    setup: [PYTHON_SHIM],
    command: withFullSummary(entrypoint),
    logParser: 'pytest',
  };
  const task: DebugTask = {
    kind: 'debug',
    id: r.task_id,
    image: r.image || options.image || DEFAULT_DEBUG_IMAGE,
    repo: r.extra_info.task_name || r.task_id,
    problemStatement: r.problem_statement,
    patch: r.patch,
    test,
    raw: row,
    taskName: r.extra_info.task_name || r.task_id,
    files,
    readOnly: readOnlyFiles(files),
    entrypoint,
  };
  if (r.FAIL_TO_PASS) task.FAIL_TO_PASS = r.FAIL_TO_PASS;
  if (r.PASS_TO_PASS) task.PASS_TO_PASS = r.PASS_TO_PASS;
  return task;
}

/** pytest prints one result line per test only with `-rA`, and the parser reads those lines. */
function withFullSummary(command: string): string {
  return /\bpytest\b/.test(command) && !/(^|\s)-rA(\s|$)/.test(command) ? `${command} -rA` : command;
}

/**
 * SWE-PDB marks read-only files in a `.debugreadonly` file; without one, the test files are: files named
 * test*.py or *_test.py.
 */
function readOnlyFiles(files: readonly DebugFile[]): string[] {
  const marker = files.find((f) => f.path === '.debugreadonly');
  if (marker) {
    return marker.content
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  }
  return files.map((f) => f.path).filter((p) => /^test.*\.py$|_test\.py$/.test(posix.basename(p)));
}

function isSafeRelativePath(path: string): boolean {
  const normalized = posix.normalize(path);
  return !posix.isAbsolute(path) && normalized !== '..' && !normalized.startsWith('../');
}
