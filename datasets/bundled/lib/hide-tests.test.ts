import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSandgymError } from '../../../src/errors.ts';
import { removeTestFunction } from './hide-tests.ts';

const MODULE = `import pytest


def test_first():
    assert 1


@pytest.mark.parametrize(
    "x",
    [1, 2],
)
def test_middle(x):
    value = x

    assert value


async def test_async():
    pass


def test_last():
    assert 3
`;

test('removes a decorated function and the blank lines after it', () => {
  const result = removeTestFunction(MODULE, 'test_middle', 'here');
  assert.equal(
    result,
    'import pytest\n\n\ndef test_first():\n    assert 1\n\n\nasync def test_async():\n    pass\n\n\ndef test_last():\n    assert 3\n',
  );
});

test('removes the last function with the blank lines before it', () => {
  const result = removeTestFunction(MODULE, 'test_last', 'here');
  assert.ok(result.endsWith('async def test_async():\n    pass\n'));
});

test('removes async functions and keeps bodies with blank lines whole', () => {
  assert.ok(!removeTestFunction(MODULE, 'test_async', 'here').includes('test_async'));
  const withoutFirst = removeTestFunction(MODULE, 'test_first', 'here');
  assert.ok(withoutFirst.includes('    value = x\n\n    assert value\n'));
  assert.ok(!withoutFirst.includes('test_first'));
});

test('a missing or ambiguous name fails loudly', () => {
  assert.throws(
    () => removeTestFunction(MODULE, 'test_nope', 'tasks/x.yaml'),
    (e) => {
      assert.ok(isSandgymError(e));
      assert.match(e.message, /tasks\/x\.yaml: expected one top-level "def test_nope\(", found 0/);
      return true;
    },
  );
  assert.throws(
    () => removeTestFunction(`${MODULE}\n\ndef test_last():\n    pass\n`, 'test_last', 'w'),
    /found 2/,
  );
});

test('a prefix of another name does not match', () => {
  assert.throws(() => removeTestFunction(MODULE, 'test_mid', 'w'), /found 0/);
});

test('code glued above the def without a blank line is refused', () => {
  const glued = 'CASES = [1]\ndef test_x():\n    pass\n';
  assert.throws(() => removeTestFunction(glued, 'test_x', 'w'), /not decorators/);
});
