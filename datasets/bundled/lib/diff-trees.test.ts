import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffTrees, isTestPath } from './diff-trees.ts';

test('isTestPath splits like SWE-bench', () => {
  for (const path of [
    'tests/test_a.py',
    'pkg/tests/util.py',
    'test_x.py',
    'pkg/x_test.py',
    'conftest.py',
    'test.py',
  ]) {
    assert.equal(isTestPath(path), true, path);
  }
  for (const path of ['pkg/a.py', 'pkg/testing_tools.py', 'contest.py', 'solution.py', 'README.md']) {
    assert.equal(isTestPath(path), false, path);
  }
});

test('diffTrees gives git-style patches, split into patch and test_patch', async () => {
  const before = new Map([
    ['pkg/a.py', 'x = 1\n'],
    ['tests/test_a.py', 'def test_a():\n    pass\n'],
    ['README.md', 'same\n'],
  ]);
  const after = new Map([
    ['pkg/a.py', 'x = 2\n'],
    ['tests/test_a.py', 'def test_a():\n    pass\n\n\ndef test_b():\n    pass\n'],
    ['tests/test_new.py', 'def test_c():\n    pass\n'],
    ['README.md', 'same\n'],
  ]);
  const { patch, testPatch } = await diffTrees(before, after);
  assert.match(
    patch,
    /^diff --git a\/pkg\/a\.py b\/pkg\/a\.py\nindex [0-9a-f]{7}\.\.[0-9a-f]{7} 100644\n--- a\/pkg\/a\.py\n\+\+\+ b\/pkg\/a\.py\n/,
  );
  assert.match(patch, /^-x = 1\n\+x = 2\n/m);
  assert.doesNotMatch(patch, /tests\/|README/);
  assert.match(testPatch, /^diff --git a\/tests\/test_a\.py b\/tests\/test_a\.py$/m);
  assert.match(testPatch, /^new file mode 100644\n/m);
  assert.match(testPatch, /^\+def test_c\(\):$/m);
});

test('identical trees give empty patches', async () => {
  const tree = new Map([['a.py', 'x\n']]);
  assert.deepEqual(await diffTrees(tree, tree), { patch: '', testPatch: '' });
});
