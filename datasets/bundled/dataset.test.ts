/**
 * Checks the committed swe.jsonl and debug.jsonl against the sources they were generated from,
 * without running pytest: every row rebuilds to its base_commit, patches touch the right files, the
 * test lists are well formed, and nothing is stale (rerun build.ts when this fails).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEBUG_ENTRYPOINT, DEBUG_PROBLEM_STATEMENT } from './lib/build-debug-task.ts';
import { MIN_PASS_TO_PASS } from './lib/build-swe-task.ts';
import { isTestPath } from './lib/diff-trees.ts';
import { writeTree } from './lib/file-tree.ts';
import { git } from './lib/git.ts';
import { mapSettled } from './lib/map-settled.ts';
import { spliceTaskTables } from './lib/readme-table.ts';
import { type DebugRow, type SweRow, testPatchFiles } from './lib/swe-row.ts';
import { loadDebugTaskSources, loadSweTaskSources } from './lib/task-source.ts';
import { materializeProject, materializeRepo } from './materialize.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const SWE_KEYS = [
  'repo',
  'instance_id',
  'base_commit',
  'patch',
  'test_patch',
  'problem_statement',
  'hints_text',
  'created_at',
  'version',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
  'environment_setup_commit',
  'image',
];

let swe: SweRow[] = [];
let debug: DebugRow[] = [];
let work = '';

async function readJsonl<T>(name: string): Promise<T[]> {
  const text = await readFile(join(HERE, name), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

const diffPaths = (patch: string) => [...patch.matchAll(/^diff --git a\/(\S+) b\/\S+$/gm)].map((m) => m[1]!);
const testList = (json: string) => JSON.parse(json) as string[];

before(async () => {
  swe = await readJsonl<SweRow>('swe.jsonl');
  debug = await readJsonl<DebugRow>('debug.jsonl');
  work = await mkdtemp(join(tmpdir(), 'sandgym-dataset-test-'));
});

after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('sizes: at least 32 SWE tasks, 8 per project, and 12 debugging tasks', () => {
  assert.ok(swe.length >= 32, `${swe.length} SWE rows`);
  assert.ok(debug.length >= 12, `${debug.length} debugging rows`);
  const perProject = new Map<string, number>();
  for (const row of swe) perProject.set(row.repo, (perProject.get(row.repo) ?? 0) + 1);
  assert.equal(perProject.size, 4);
  for (const [repo, count] of perProject) assert.ok(count >= 8, `${repo}: ${count} tasks`);
});

test('rows match their sources, in order', async () => {
  const sources = await loadSweTaskSources(join(HERE, 'tasks'));
  assert.deepEqual(
    swe.map((r) => r.instance_id),
    sources.map((s) => s.instanceId),
  );
  sources.forEach((source, i) => {
    const row = swe[i]!;
    assert.equal(row.problem_statement, source.problem_statement, row.instance_id);
    assert.equal(row.hints_text, source.hints_text, row.instance_id);
    assert.equal(row.created_at, source.created_at, row.instance_id);
  });
  const debugSources = await loadDebugTaskSources(join(HERE, 'debug'));
  assert.deepEqual(
    debug.map((r) => r.task_id),
    debugSources.map((s) => s.taskId),
  );
});

test('SWE rows have exactly the SWE-bench columns plus image, well formed', () => {
  for (const row of swe) {
    const id = row.instance_id;
    assert.deepEqual(Object.keys(row), SWE_KEYS, id);
    for (const key of SWE_KEYS) assert.equal(typeof row[key as keyof SweRow], 'string', `${id}.${key}`);
    const match = /^sandgym__([a-z]+)-(\d{4})$/.exec(id);
    assert.ok(match, id);
    assert.equal(row.repo, `sandgym/${match[1]}`);
    assert.equal(row.image, `sandgym/${match[1]}:${match[2]}`);
    assert.match(row.base_commit, /^[0-9a-f]{40}$/);
    assert.match(row.version, /^\d+\.\d+$/);
  }
});

test('patch touches only code, test_patch only tests, and the test lists come from the test files', () => {
  for (const row of swe) {
    const id = row.instance_id;
    assert.ok(diffPaths(row.patch).length > 0 && diffPaths(row.patch).every((p) => !isTestPath(p)), id);
    assert.ok(diffPaths(row.test_patch).length > 0 && diffPaths(row.test_patch).every(isTestPath), id);
    const failToPass = testList(row.FAIL_TO_PASS);
    const passToPass = testList(row.PASS_TO_PASS);
    assert.ok(failToPass.length >= 1, `${id}: FAIL_TO_PASS`);
    assert.ok(passToPass.length >= MIN_PASS_TO_PASS, `${id}: PASS_TO_PASS`);
    const files = new Set(testPatchFiles(row.test_patch));
    for (const testId of [...failToPass, ...passToPass]) {
      assert.match(testId, /^\S+\.py::\S+$/, `${id}: ${testId}`);
      assert.ok(files.has(testId.split('::')[0]!), `${id}: ${testId} is not in a file of test_patch`);
    }
    assert.equal(new Set([...failToPass, ...passToPass]).size, failToPass.length + passToPass.length, id);
  }
});

test('every row materializes to its base_commit, and projects to their environment_setup_commit', async () => {
  const projectsDir = join(HERE, 'projects');
  const results = await mapSettled(swe, 4, (row) =>
    materializeRepo(row, projectsDir, join(work, row.instance_id)),
  );
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  for (const repo of new Set(swe.map((r) => r.repo))) {
    const project = repo.split('/')[1]!;
    const { commit } = await materializeProject(project, projectsDir, join(work, `${project}-clean`));
    for (const row of swe.filter((r) => r.repo === repo)) assert.equal(row.environment_setup_commit, commit);
  }
});

test('debugging rows have SWE-PDB columns, and the gold patch gives back the clean solution', async () => {
  for (const row of debug) {
    const id = row.task_id;
    const name = id.replace(/^sandgym_/, '');
    assert.deepEqual(Object.keys(row), [
      'task_id',
      'problem_statement',
      'prompt',
      'extra_info',
      'patch',
      'FAIL_TO_PASS',
      'PASS_TO_PASS',
    ]);
    assert.equal(row.problem_statement, DEBUG_PROBLEM_STATEMENT);
    assert.deepEqual(JSON.parse(row.prompt), [{ role: 'user', content: DEBUG_PROBLEM_STATEMENT }]);
    assert.deepEqual(Object.keys(row.extra_info), ['entrypoint', 'files', 'task_name']);
    assert.equal(row.extra_info.entrypoint, DEBUG_ENTRYPOINT);
    assert.equal(row.extra_info.task_name, id);
    assert.deepEqual(
      row.extra_info.files.map((f) => f.path),
      ['solution.py', 'test.py'],
    );
    const solution = row.extra_info.files[0]!;
    const testFile = row.extra_info.files[1]!;
    assert.equal(testFile.content, await readFile(join(HERE, 'debug', name, 'test.py'), 'utf8'));
    const dir = join(work, id);
    await writeTree(dir, new Map([['solution.py', solution.content]]));
    await git(['init', '-q', '--template='], { cwd: dir });
    await git(['apply', '-'], { cwd: dir, input: row.patch });
    const fixed = await readFile(join(dir, 'solution.py'), 'utf8');
    assert.equal(fixed, await readFile(join(HERE, 'debug', name, 'solution.py'), 'utf8'), id);
    assert.ok(testList(row.FAIL_TO_PASS).length >= 1, id);
    for (const testId of [...testList(row.FAIL_TO_PASS), ...testList(row.PASS_TO_PASS)]) {
      assert.match(testId, /^test\.py::test_\w+$/);
    }
  }
});

test('the README task tables are up to date', async () => {
  const readme = await readFile(join(HERE, 'README.md'), 'utf8');
  const swe = await loadSweTaskSources(join(HERE, 'tasks'));
  const debug = await loadDebugTaskSources(join(HERE, 'debug'));
  assert.equal(spliceTaskTables(readme, swe, debug), readme);
});
