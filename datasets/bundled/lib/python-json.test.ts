import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonJsonDumps } from './python-json.ts';

// Expected strings are what CPython's json.dumps prints for the same values.
test('lists use ", " like json.dumps', () => {
  assert.equal(pythonJsonDumps(['tests/a.py::t[x]', 'b']), '["tests/a.py::t[x]", "b"]');
  assert.equal(pythonJsonDumps([]), '[]');
});

test('objects use ": " and keep key order', () => {
  assert.equal(
    pythonJsonDumps([{ role: 'user', content: 'Hi "there"\n' }]),
    '[{"role": "user", "content": "Hi \\"there\\"\\n"}]',
  );
});

test('non-ASCII and DEL are escaped like ensure_ascii', () => {
  assert.equal(pythonJsonDumps('café ✓ \u007f'), '"caf\\u00e9 \\u2713 \\u007f"');
  assert.equal(pythonJsonDumps('😀'), '"\\ud83d\\ude00"');
});

test('scalars', () => {
  assert.equal(pythonJsonDumps([1, 2.5, true, null]), '[1, 2.5, true, null]');
  assert.throws(() => pythonJsonDumps(undefined), /cannot encode/);
});
