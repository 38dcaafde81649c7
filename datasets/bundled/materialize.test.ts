import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isSandgymError } from '../../src/errors.ts';
import { git } from './lib/git.ts';
import { BASE_COMMIT_IDENTITY, materializeProject, materializeRepo, projectOf } from './materialize.ts';

let root = '';
let projects = '';
let counter = 0;
const fresh = () => join(root, `out-${counter++}`);

const row = {
  repo: 'sandgym/demo',
  patch: 'diff --git a/demo.py b/demo.py\n--- a/demo.py\n+++ b/demo.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n',
  test_patch: [
    'diff --git a/tests/test_new.py b/tests/test_new.py',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/tests/test_new.py',
    '@@ -0,0 +1,2 @@',
    '+def test_new():',
    '+    assert True',
    '',
  ].join('\n'),
};

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sandgym-materialize-'));
  projects = join(root, 'projects');
  await mkdir(join(projects, 'demo', 'tests'), { recursive: true });
  await mkdir(join(projects, 'demo', '__pycache__'));
  await writeFile(join(projects, 'demo', 'demo.py'), 'x = 2\n', { mode: 0o755 });
  await writeFile(join(projects, 'demo', 'tests', 'test_new.py'), 'def test_new():\n    assert True\n');
  await writeFile(join(projects, 'demo', '__pycache__', 'demo.cpython-311.pyc'), 'junk');
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('builds the buggy tree as one deterministic root commit on main', async () => {
  const dest = fresh();
  const { baseCommit } = await materializeRepo(row, projects, dest);
  assert.equal(await readFile(join(dest, 'demo.py'), 'utf8'), 'x = 1\n');
  await assert.rejects(readFile(join(dest, 'tests', 'test_new.py')));
  assert.equal((await git(['rev-parse', 'HEAD'], { cwd: dest })).trim(), baseCommit);
  assert.equal((await git(['branch', '--show-current'], { cwd: dest })).trim(), 'main');
  const log = await git(['log', '--format=%an <%ae> %ad|%cn %cd|%s|%P', '--date=unix'], { cwd: dest });
  const { name, email, message } = BASE_COMMIT_IDENTITY;
  assert.equal(log, `${name} <${email}> 1735689600|${name} 1735689600|${message}|\n`);
  assert.equal(await git(['status', '--porcelain'], { cwd: dest }), '');
  const files = await git(['ls-files', '-s'], { cwd: dest });
  assert.match(
    files,
    /^100644 [0-9a-f]{40} 0\tdemo\.py$/m,
    'the executable bit of the source is not recorded',
  );
  assert.doesNotMatch(files, /pycache/);
});

test('the same row always gives the same hash, and a recorded base_commit is checked', async () => {
  const first = await materializeRepo(row, projects, fresh());
  const second = await materializeRepo({ ...row, base_commit: first.baseCommit }, projects, fresh());
  assert.equal(second.baseCommit, first.baseCommit);
  await assert.rejects(materializeRepo({ ...row, base_commit: 'f'.repeat(40) }, projects, fresh()), (e) => {
    assert.ok(isSandgymError(e));
    assert.match(e.message, /differs from the row's base_commit f{40}.*rerun datasets\/bundled\/build\.ts/);
    return true;
  });
});

test('the clean project commits to a different hash than any task', async () => {
  const { commit } = await materializeProject('demo', projects, fresh());
  const { baseCommit } = await materializeRepo(row, projects, fresh());
  assert.match(commit, /^[0-9a-f]{40}$/);
  assert.notEqual(commit, baseCommit);
});

test('bad input fails with a DatasetError that says what is wrong', async () => {
  const busy = fresh();
  await mkdir(busy);
  await writeFile(join(busy, 'file'), '');
  await assert.rejects(materializeRepo(row, projects, busy), /is not empty/);
  await assert.rejects(
    materializeRepo(
      { ...row, patch: row.patch.replace('-x = 1', '-x = 7').replace('+x = 2', '+x = 8') },
      projects,
      fresh(),
    ),
    /sandgym\/demo: patch does not reverse-apply to projects\/demo/,
  );
  await assert.rejects(
    materializeRepo({ ...row, repo: 'other/demo' }, projects, fresh()),
    /not a bundled project/,
  );
  await assert.rejects(
    materializeRepo({ ...row, repo: 'sandgym/absent' }, projects, fresh()),
    /cannot read the files/,
  );
  assert.equal(projectOf('sandgym/inikit'), 'inikit');
});

test('the public face points at the committed files', async () => {
  const { BUNDLED } = await import('./index.ts');
  for (const path of [
    BUNDLED.sweJsonl,
    BUNDLED.debugJsonl,
    join(BUNDLED.projectsDir, 'inikit', 'pyproject.toml'),
  ]) {
    await readFile(path);
  }
});
