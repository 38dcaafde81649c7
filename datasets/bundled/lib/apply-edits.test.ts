import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyEdits } from './apply-edits.ts';

const clean = new Map([
  ['pkg/a.py', 'def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x + 1\n'],
  ['pkg/b.py', 'VALUE = 1\n'],
]);

test('replaces the unique fixed text and leaves the input tree alone', () => {
  const buggy = applyEdits(clean, [{ path: 'pkg/b.py', fixed: 'VALUE = 1', buggy: 'VALUE = 2' }], 't.yaml');
  assert.equal(buggy.get('pkg/b.py'), 'VALUE = 2\n');
  assert.equal(clean.get('pkg/b.py'), 'VALUE = 1\n');
  assert.equal(buggy.get('pkg/a.py'), clean.get('pkg/a.py'));
});

test('edits apply in order, so a later edit may rely on an earlier one', () => {
  const buggy = applyEdits(
    clean,
    [
      { path: 'pkg/b.py', fixed: 'VALUE = 1', buggy: 'VALUE = 2' },
      { path: 'pkg/b.py', fixed: 'VALUE = 2', buggy: 'VALUE = 3' },
    ],
    't.yaml',
  );
  assert.equal(buggy.get('pkg/b.py'), 'VALUE = 3\n');
});

test('replacement text is literal, even with $ patterns', () => {
  const buggy = applyEdits(clean, [{ path: 'pkg/b.py', fixed: '1', buggy: "$&$'" }], 't.yaml');
  assert.equal(buggy.get('pkg/b.py'), "VALUE = $&$'\n");
});

test('ambiguous, missing or no-op edits fail with the task file and edit index', () => {
  assert.throws(
    () => applyEdits(clean, [{ path: 'pkg/a.py', fixed: 'return x + 1', buggy: 'return x' }], 't.yaml'),
    /t\.yaml: edits\[0\] \(pkg\/a\.py\): the fixed text must occur exactly once, found 2 times/,
  );
  assert.throws(
    () => applyEdits(clean, [{ path: 'pkg/a.py', fixed: 'nope', buggy: '' }], 't.yaml'),
    /found 0 times/,
  );
  assert.throws(
    () => applyEdits(clean, [{ path: 'pkg/c.py', fixed: 'x', buggy: '' }], 't.yaml'),
    /no such file/,
  );
  assert.throws(
    () => applyEdits(clean, [{ path: 'pkg/b.py', fixed: 'V', buggy: 'V' }], 't.yaml'),
    /same text/,
  );
});

test('removing code without the blank lines after it is refused: the gap would give the bug away', () => {
  const tree = new Map([
    [
      'm.py',
      'class A:\n    def f(self):\n        pass\n\n    def g(self):\n        pass\n\n    def k(self):\n        pass\n',
    ],
  ]);
  const method = '    def g(self):\n        pass\n';
  assert.throws(
    () => applyEdits(tree, [{ path: 'm.py', fixed: method, buggy: '' }], 't.yaml'),
    /extra blank lines in m\.py/,
  );
  const removed = applyEdits(tree, [{ path: 'm.py', fixed: `${method}\n`, buggy: '' }], 't.yaml');
  assert.equal(
    removed.get('m.py'),
    'class A:\n    def f(self):\n        pass\n\n    def k(self):\n        pass\n',
  );
  const topLevel = 'def h():\n    pass\n';
  const module = new Map([['m.py', `x = 1\n\n\n${topLevel}\n\ny = 2\n`]]);
  assert.throws(
    () => applyEdits(module, [{ path: 'm.py', fixed: topLevel, buggy: '' }], 't'),
    /extra blank lines/,
  );
});
