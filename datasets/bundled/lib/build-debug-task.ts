import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DatasetError } from '../../../src/errors.ts';
import { applyEdits } from './apply-edits.ts';
import { checkReport } from './check-report.ts';
import { diffTrees } from './diff-trees.ts';
import { readTree, writeTree } from './file-tree.ts';
import { git } from './git.ts';
import { pythonJsonDumps } from './python-json.ts';
import { runPytest } from './run-pytest.ts';
import { isResolved, splitTests } from './split-tests.ts';
import type { DebugRow } from './swe-row.ts';
import type { DebugTaskSource } from './task-source.ts';

/** SWE-PDB's fixed instruction, its entrypoint, and the size of a KodCode test file. */
export const DEBUG_PROBLEM_STATEMENT =
  'Investigate the repository, find the bug, and fix it so that all tests pass.';
export const DEBUG_ENTRYPOINT = 'python -m pytest --tb=no -s test.py';
const TEST_COUNT = { min: 5, max: 15 };

/**
 * Builds and validates one single-file debugging row: the buggy `solution.py` beside the read-only
 * `test.py`, the gold patch of `solution.py`, and the test lists from a run before and after it.
 */
export async function buildDebugRow(
  source: DebugTaskSource,
  ctx: { rootfs: string; workDir: string },
): Promise<DebugRow> {
  const id = source.taskId;
  const clean = await readTree(source.dir);
  const names = [...clean.keys()].sort().join(', ');
  if (names !== 'solution.py, task.yaml, test.py') {
    throw new DatasetError(
      `${source.dir}: a debug task has exactly solution.py, test.py and task.yaml, found ${names}`,
    );
  }
  clean.delete('task.yaml');
  const test = clean.get('test.py')!;
  if (!test.startsWith('from solution import *\n')) {
    throw new DatasetError(`${source.dir}/test.py: KodCode test files start with "from solution import *"`);
  }
  const buggy = applyEdits(clean, source.edits, join(source.dir, 'task.yaml'));
  const { patch } = await diffTrees(buggy, clean);

  const run = async (name: string, patches: string[]) => {
    const dir = join(ctx.workDir, name);
    await mkdir(dir, { recursive: true });
    await writeTree(dir, buggy);
    await git(['init', '-q', '--template='], { cwd: dir });
    for (const p of patches) await git(['apply', '-'], { cwd: dir, input: p });
    const result = await runPytest(dir, ['test.py'], { rootfs: ctx.rootfs, label: `${id} (${name})` });
    checkReport(result, `${id} (${name})`);
    return result.report.statuses;
  };
  const before = await run('empty-patch', []);
  const after = await run('gold-patch', [patch]);
  if (after.size < TEST_COUNT.min || after.size > TEST_COUNT.max) {
    throw new DatasetError(
      `${id}: test.py has ${after.size} tests; KodCode-style tasks have ${TEST_COUNT.min}-${TEST_COUNT.max}`,
    );
  }
  const { failToPass, passToPass } = splitTests(before, after, id);
  if (failToPass.length === 0) throw new DatasetError(`${id}: every test passes on the buggy solution.py`);
  if (!isResolved(after, failToPass, passToPass))
    throw new DatasetError(`${id}: gold patch does not resolve`);
  if (isResolved(before, failToPass, passToPass)) throw new DatasetError(`${id}: empty patch resolves`);

  return {
    task_id: id,
    problem_statement: DEBUG_PROBLEM_STATEMENT,
    prompt: pythonJsonDumps([{ role: 'user', content: DEBUG_PROBLEM_STATEMENT }]),
    extra_info: {
      entrypoint: DEBUG_ENTRYPOINT,
      files: [
        { path: 'solution.py', content: buggy.get('solution.py')! },
        { path: 'test.py', content: test },
      ],
      task_name: id,
    },
    patch,
    FAIL_TO_PASS: pythonJsonDumps(failToPass),
    PASS_TO_PASS: pythonJsonDumps(passToPass),
  };
}
