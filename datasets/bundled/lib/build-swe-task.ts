import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { DatasetError } from '../../../src/errors.ts';
import { materializeRepo } from '../materialize.ts';
import { applyEdits } from './apply-edits.ts';
import { checkReport } from './check-report.ts';
import { diffTrees, isTestPath } from './diff-trees.ts';
import { type FileTree, readTree } from './file-tree.ts';
import { git } from './git.ts';
import { removeTestFunction } from './hide-tests.ts';
import type { ProjectInfo } from './project-info.ts';
import { pythonJsonDumps } from './python-json.ts';
import { type PytestRun, runPytest } from './run-pytest.ts';
import { isResolved, splitTests } from './split-tests.ts';
import { type SweRow, testPatchFiles } from './swe-row.ts';
import type { SweTaskSource } from './task-source.ts';

export const MIN_PASS_TO_PASS = 10;

export interface SweBuildContext {
  projectsDir: string;
  rootfs: string;
  /** An empty directory this task may fill. */
  workDir: string;
  project: ProjectInfo;
}

/**
 * Builds and validates one SWE row: derives the buggy tree from the task's edits, diffs it into
 * `patch` and `test_patch`, materializes the agent's repository, and runs the tests three times:
 * the agent's repository as is (its visible suite must be green, so the bug is not given away),
 * with the test patch (the empty-patch run), and with both patches (the gold run).
 */
export async function buildSweRow(source: SweTaskSource, ctx: SweBuildContext): Promise<SweRow> {
  const { project, workDir } = ctx;
  const id = source.instanceId;
  const buggy = buggyTree(source, project.tree);
  const { patch, testPatch } = await diffTrees(buggy, project.tree);
  if (!patch) throw new DatasetError(`${source.file}: the edits change no project file outside the tests`);
  if (!testPatch)
    throw new DatasetError(`${source.file}: nothing is hidden; list the exposing tests in hidden_tests`);

  const repo = `sandgym/${project.name}`;
  const repoDir = join(workDir, 'repo');
  const { baseCommit } = await materializeRepo(
    { repo, patch, test_patch: testPatch },
    ctx.projectsDir,
    repoDir,
  );
  await expectSameTree(repoDir, buggy, id);

  const { failToPass, passToPass } = await testLists(id, repoDir, patch, testPatch, ctx);
  return {
    repo,
    instance_id: id,
    base_commit: baseCommit,
    patch,
    test_patch: testPatch,
    problem_statement: source.problem_statement,
    hints_text: source.hints_text,
    created_at: source.created_at,
    version: project.version,
    FAIL_TO_PASS: pythonJsonDumps(failToPass),
    PASS_TO_PASS: pythonJsonDumps(passToPass),
    environment_setup_commit: project.setupCommit,
    image: `sandgym/${project.name}:${source.number}`.toLowerCase(),
  };
}

/** Runs the three test runs of a task and returns its FAIL_TO_PASS and PASS_TO_PASS, or throws. */
async function testLists(
  id: string,
  repoDir: string,
  patch: string,
  testPatch: string,
  ctx: SweBuildContext,
): Promise<{ failToPass: string[]; passToPass: string[] }> {
  const run = async (name: string, patches: string[], args: string[]): Promise<PytestRun> => {
    const dir = join(ctx.workDir, name);
    await cp(repoDir, dir, { recursive: true });
    for (const p of patches) await git(['apply', '--whitespace=nowarn', '-'], { cwd: dir, input: p });
    const result = await runPytest(dir, args, { rootfs: ctx.rootfs, label: `${id} (${name})` });
    checkReport(result, `${id} (${name})`);
    return result;
  };
  const visible = await run('visible', [], []);
  const failingVisible = [...visible.report.statuses].filter(([, s]) => s !== 'PASSED').map(([t]) => t);
  if (visible.exitCode !== 0 || failingVisible.length > 0) {
    throw new DatasetError(
      `${id}: the agent's repository must have a green test suite, but these fail: ${failingVisible.join(', ')}; ` +
        'hide them too (hidden_tests) or change the bug',
    );
  }
  const testFiles = testPatchFiles(testPatch);
  const before = (await run('empty-patch', [testPatch], testFiles)).report.statuses;
  const after = (await run('gold-patch', [testPatch, patch], testFiles)).report.statuses;
  const { failToPass, passToPass } = splitTests(before, after, id);
  if (failToPass.length === 0) {
    throw new DatasetError(`${id}: no test fails before the gold patch; the bug is not exposed`);
  }
  if (passToPass.length < MIN_PASS_TO_PASS) {
    throw new DatasetError(`${id}: only ${passToPass.length} PASS_TO_PASS tests (need ${MIN_PASS_TO_PASS})`);
  }
  if (!isResolved(after, failToPass, passToPass))
    throw new DatasetError(`${id}: gold patch does not resolve`);
  if (isResolved(before, failToPass, passToPass)) throw new DatasetError(`${id}: empty patch resolves`);
  return { failToPass, passToPass };
}

function buggyTree(source: SweTaskSource, clean: FileTree): FileTree {
  const tree = applyEdits(clean, source.edits, source.file);
  for (const test of source.hidden_tests) {
    const [path, name] = test.split('::') as [string, string];
    const where = `${source.file}: hidden_tests ${test}`;
    const content = tree.get(path);
    if (!isTestPath(path) || content === undefined) throw new DatasetError(`${where}: no such test file`);
    tree.set(path, removeTestFunction(content, name, where));
  }
  return tree;
}

async function expectSameTree(dir: string, expected: FileTree, id: string): Promise<void> {
  const actual = await readTree(dir);
  const paths = new Set([...actual.keys(), ...expected.keys()]);
  const differing = [...paths].filter((p) => actual.get(p) !== expected.get(p));
  if (differing.length > 0) {
    throw new DatasetError(
      `${id}: the materialized repository differs from the edited sources in ${differing.join(', ')}`,
    );
  }
}
