import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffFilePath, diffFiles } from './diff-files.ts';

test('git diff: modified, created, deleted and renamed files', () => {
  const patch = [
    'diff --git a/src/app.py b/src/app.py',
    'index 1111111..2222222 100644',
    '--- a/src/app.py',
    '+++ b/src/app.py',
    '@@ -1,2 +1,2 @@',
    ' import os',
    '-x = 1',
    '+x = 2',
    'diff --git a/tests/test_new.py b/tests/test_new.py',
    'new file mode 100644',
    'index 0000000..3333333',
    '--- /dev/null',
    '+++ b/tests/test_new.py',
    '@@ -0,0 +1 @@',
    '+def test_x(): pass',
    'diff --git a/old.txt b/old.txt',
    'deleted file mode 100644',
    'index 4444444..0000000',
    '--- a/old.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-gone',
    'diff --git a/a.py b/b.py',
    'similarity index 100%',
    'rename from a.py',
    'rename to b.py',
    '',
  ].join('\n');
  assert.deepEqual(diffFiles(patch), [
    { oldPath: 'src/app.py', newPath: 'src/app.py' },
    { oldPath: null, newPath: 'tests/test_new.py' },
    { oldPath: 'old.txt', newPath: null },
    { oldPath: 'a.py', newPath: 'b.py' },
  ]);
  assert.deepEqual(diffFiles(patch).map(diffFilePath), [
    'src/app.py',
    'tests/test_new.py',
    'old.txt',
    'b.py',
  ]);
});

test('a removed line that starts with "-- " inside a hunk is not a file header', () => {
  const patch = [
    'diff --git a/q.sql b/q.sql',
    '--- a/q.sql',
    '+++ b/q.sql',
    '@@ -1,2 +1,1 @@',
    '--- a comment',
    '++- not a header either',
    'diff --git a/r.sql b/r.sql',
    '--- a/r.sql',
    '+++ b/r.sql',
    '@@ -1 +1 @@',
    '-x',
    '+y',
  ].join('\n');
  assert.deepEqual(diffFiles(patch).map(diffFilePath), ['q.sql', 'r.sql']);
});

test('plain diff -u with several files and timestamps', () => {
  const patch = [
    '--- a/one.py\t2024-01-01 00:00:00.000000000 +0000',
    '+++ b/one.py\t2024-01-02 00:00:00.000000000 +0000',
    '@@ -1 +1 @@',
    '-a',
    '+b',
    '--- a/two.py',
    '+++ b/two.py',
    '@@ -1 +1 @@',
    '-c',
    '+d',
  ].join('\n');
  assert.deepEqual(diffFiles(patch), [
    { oldPath: 'one.py', newPath: 'one.py' },
    { oldPath: 'two.py', newPath: 'two.py' },
  ]);
});

test('paths with spaces and git-quoted paths, as git itself writes them', () => {
  const repo = mkdtempSync(join(tmpdir(), 'sandgym-diff-'));
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {
        cwd: repo,
        encoding: 'utf8',
      });
    git('init', '-q');
    writeFileSync(join(repo, 'my file.py'), 'a\n');
    writeFileSync(join(repo, 'tab\there.py'), 'a\n');
    writeFileSync(join(repo, 'über.py'), 'a\n');
    git('add', '-A');
    git('commit', '-qm', 'base');
    for (const name of ['my file.py', 'tab\there.py', 'über.py']) writeFileSync(join(repo, name), 'b\n');
    const files = diffFiles(git('diff')).map(diffFilePath).sort();
    assert.deepEqual(files, ['my file.py', 'tab\there.py', 'über.py']);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('an empty patch touches nothing', () => {
  assert.deepEqual(diffFiles(''), []);
});
