import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spliceTaskTables } from './readme-table.ts';
import type { DebugTaskSource, SweTaskSource } from './task-source.ts';

const swe = [
  {
    instanceId: 'sandgym__p-0001',
    project: 'p',
    kind: 'precedence',
    summary: 'a ** b | c',
    edits: [
      { path: 'p/x.py', fixed: 'a', buggy: 'b' },
      { path: 'tests/test_x.py', fixed: 'c', buggy: '' },
    ],
  },
] as unknown as SweTaskSource[];
const debug = [{ taskId: 'sandgym_t', kind: 'off-by-one', summary: 's' }] as unknown as DebugTaskSource[];

test('rewrites only the text between the markers, escaping table syntax', () => {
  const readme = 'intro\n<!-- tasks:start (written by build.ts) -->\nold\n<!-- tasks:end -->\noutro\n';
  const result = spliceTaskTables(readme, swe, debug);
  assert.ok(result.startsWith('intro\n<!-- tasks:start (written by build.ts) -->\n'));
  assert.ok(result.endsWith('<!-- tasks:end -->\noutro\n'));
  assert.ok(!result.includes('old'));
  assert.match(
    result,
    /^\| sandgym__p-0001 +\| p +\| precedence +\| `p\/x\.py` +\| a \\\*\\\* b \\\| c +\|$/m,
  );
  assert.match(result, /^\| sandgym_t +\| off-by-one +\| s +\|$/m);
  assert.match(result, /^\| -{15} \| -{7} \| -{11} \|/m, 'columns are padded to their widest cell');
  assert.equal(spliceTaskTables(result, swe, debug), result);
});

test('a README without the markers is an error', () => {
  assert.throws(() => spliceTaskTables('no markers', swe, debug), /markers/);
});
