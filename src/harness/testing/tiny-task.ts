import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTaskRow, type SweTask } from '../../tasks/index.ts';

/**
 * A tiny real task in SWE-bench's format, for harness tests: a repository with a bug in `calc.add`, a
 * test patch that adds the test exposing it, the gold patch, and a patch that cannot apply.
 */

const BUGGY = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n';
const TESTS = 'from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n';

export const GOLD_PATCH = [
  'diff --git a/calc.py b/calc.py',
  '--- a/calc.py',
  '+++ b/calc.py',
  '@@ -1,5 +1,5 @@',
  ' def add(a, b):',
  '-    return a - b',
  '+    return a + b',
  ' ',
  ' ',
  ' def mul(a, b):',
  '',
].join('\n');

export const TEST_PATCH = [
  'diff --git a/tests/test_calc.py b/tests/test_calc.py',
  '--- a/tests/test_calc.py',
  '+++ b/tests/test_calc.py',
  '@@ -3,3 +3,7 @@ from calc import add, mul',
  ' ',
  ' def test_mul():',
  '     assert mul(2, 3) == 6',
  '+',
  '+',
  '+def test_add():',
  '+    assert add(2, 3) == 5',
  '',
].join('\n');

/** A patch against lines the repository does not have: no way of applying it works. */
export const BROKEN_PATCH = [
  'diff --git a/calc.py b/calc.py',
  '--- a/calc.py',
  '+++ b/calc.py',
  '@@ -1,2 +1,2 @@',
  ' def subtract(a, b):',
  '-    return a + b',
  '+    return a - b',
  '',
].join('\n');

/** Writes the buggy repository into `dir` and commits it; returns the base commit. */
export function createTinyRepo(dir: string): string {
  mkdirSync(join(dir, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'calc.py'), BUGGY);
  writeFileSync(join(dir, 'tests', 'test_calc.py'), TESTS);
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    ).trim();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return git('rev-parse', 'HEAD');
}

/** The task, read from a SWE-bench row through the tasks module like any dataset row. */
export function tinyTask(baseCommit: string, options: { workdir?: string; image?: string } = {}): SweTask {
  const result = parseTaskRow({
    repo: 'sandgym/tiny-calc',
    instance_id: 'sandgym__tiny-calc-1',
    base_commit: baseCommit,
    patch: GOLD_PATCH,
    test_patch: TEST_PATCH,
    problem_statement: 'add(2, 3) returns -1.',
    FAIL_TO_PASS: '["tests/test_calc.py::test_add"]',
    PASS_TO_PASS: '["tests/test_calc.py::test_mul"]',
    image: options.image ?? 'sandgym/base:latest',
    test_cmd: 'python3 -m pytest -rA -p no:cacheprovider',
  });
  if (!result.ok) throw new Error(`tiny task row is invalid: ${result.problem.message}`);
  const task = result.task as SweTask;
  if (options.workdir) task.test = { ...task.test, workdir: options.workdir };
  return task;
}
