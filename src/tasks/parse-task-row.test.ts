import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectKind, parseTaskRow } from './parse-task-row.ts';
import type { DebugTask, R2eTask, SweTask, Task } from './types.ts';

const TEST_PATCH = [
  'diff --git a/tests/test_widgets.py b/tests/test_widgets.py',
  '--- a/tests/test_widgets.py',
  '+++ b/tests/test_widgets.py',
  '@@ -1 +1,2 @@',
  ' import widgets',
  '+def test_new(): pass',
].join('\n');

const SWE_ROW = {
  repo: 'acme/widgets',
  instance_id: 'acme__widgets-101',
  base_commit: 'a'.repeat(40),
  patch: 'diff --git a/widgets.py b/widgets.py\n',
  test_patch: TEST_PATCH,
  problem_statement: 'Widgets overflow when the label is empty.',
  hints_text: '',
  created_at: '2024-03-01T10:00:00Z',
  version: '1.2',
  FAIL_TO_PASS: '["tests/test_widgets.py::test_new"]',
  PASS_TO_PASS: '["tests/test_widgets.py::test_old", "tests/test_widgets.py::test_param[a b]"]',
  environment_setup_commit: 'b'.repeat(40),
};

function ok(row: unknown, options = {}): Task {
  const result = parseTaskRow(row, options);
  if (!result.ok) assert.fail(`expected a task, got ${JSON.stringify(result.problem)}`);
  return result.task;
}

test('a SWE-bench row: JSON-string lists, default image, pytest -rA on the test files', () => {
  const task = ok(SWE_ROW) as SweTask;
  assert.equal(task.kind, 'swe');
  assert.equal(task.id, 'acme__widgets-101');
  assert.deepEqual(task.FAIL_TO_PASS, ['tests/test_widgets.py::test_new']);
  assert.deepEqual(task.PASS_TO_PASS, [
    'tests/test_widgets.py::test_old',
    'tests/test_widgets.py::test_param[a b]',
  ]);
  assert.equal(task.image, 'swebench/sweb.eval.x86_64.acme_1776_widgets-101:latest');
  assert.equal(task.test.command, 'pytest -rA tests/test_widgets.py');
  assert.equal(task.test.logParser, 'pytest');
  assert.equal(task.test.workdir, '/testbed');
  assert.equal(task.evalType, 'pass_and_fail');
  assert.equal(task.raw, SWE_ROW);
});

test('SWE-bench rows with real lists, an image column, and SWE-bench 5 eval columns', () => {
  const task = ok({
    ...SWE_ROW,
    FAIL_TO_PASS: ['t::a'],
    PASS_TO_PASS: [],
    docker_image: 'slimshetty/swebench-lite:sweb.eval.x86_64.acme__widgets-101',
    eval_script: '#!/bin/bash\necho hi\n',
    log_parser: 'parse_log_pytest_v2',
    eval_type: 'fail_only',
    version: 3.1,
  }) as SweTask;
  assert.deepEqual(task.FAIL_TO_PASS, ['t::a']);
  assert.equal(task.image, 'slimshetty/swebench-lite:sweb.eval.x86_64.acme__widgets-101');
  assert.equal(task.test.evalScript, '#!/bin/bash\necho hi\n');
  assert.equal(task.test.logParser, 'pytest_v2');
  assert.equal(task.evalType, 'fail_only');
  assert.equal(task.version, '3.1');
});

test('fail-only repositories are graded fail-only without an eval_type column', () => {
  assert.equal((ok({ ...SWE_ROW, repo: 'markedjs/marked' }) as SweTask).evalType, 'fail_only');
});

test('a bad SWE-bench row names its field', () => {
  const missing = parseTaskRow({ ...SWE_ROW, base_commit: undefined });
  assert.deepEqual(missing, { ok: false, problem: { field: 'base_commit', message: 'missing' } });
  const badList = parseTaskRow({ ...SWE_ROW, PASS_TO_PASS: '["unterminated' });
  assert.equal(badList.ok, false);
  if (!badList.ok) {
    assert.equal(badList.problem.field, 'PASS_TO_PASS');
    assert.match(badList.problem.message, /list of strings/);
  }
  const badItem = parseTaskRow({ ...SWE_ROW, FAIL_TO_PASS: '["ok", 3]' });
  assert.equal(!badItem.ok && badItem.problem.field, 'FAIL_TO_PASS.1');
});

const R2E_ROW = {
  repo_name: 'orange3',
  docker_image: 'namanjain12/orange3_final:0123abc',
  commit_hash: '0123abc',
  problem_statement: '[ISSUE]\nTitle: Crash on empty table\n\nSteps...\n[/ISSUE]',
  expected_output_json: '{"TestTable.test_empty": "PASSED", "TestTable.test_bad": "FAILED"}',
  prompt: 'ignored',
};

test('an R2E-Gym row: issue text extracted, expected output parsed, run_tests.sh', () => {
  const task = ok(R2E_ROW) as R2eTask;
  assert.equal(task.kind, 'r2e');
  assert.equal(task.id, 'orange3-0123abc');
  assert.equal(task.image, 'namanjain12/orange3_final:0123abc');
  assert.equal(task.problemStatement, 'Title: Crash on empty table\n\nSteps...');
  assert.deepEqual(task.expectedOutput, { 'TestTable.test_empty': 'PASSED', 'TestTable.test_bad': 'FAILED' });
  assert.equal(task.test.logParser, 'r2e_pytest');
  assert.match(task.test.command, /run_tests\.sh/);
});

test('a bad R2E-Gym row names its field', () => {
  const result = parseTaskRow({ ...R2E_ROW, expected_output_json: '{"a": 1}' });
  assert.equal(!result.ok && result.problem.field, 'expected_output_json.a');
});

const DEBUG_ROW = {
  task_id: 'kodcode_Leetcode_1_I',
  problem_statement: 'Investigate the repository, find the bug, and fix it so that all tests pass.',
  prompt: '[{"role": "user", "content": "..."}]',
  extra_info: JSON.stringify({
    entrypoint: 'python -m pytest --tb=no -s test.py',
    files: [
      { path: 'solution.py', content: 'def add(a, b):\n    return a - b\n' },
      { path: 'test.py', content: 'from solution import *\n\ndef test_add():\n    assert add(1, 2) == 3\n' },
    ],
    task_name: 'kodcode_Leetcode_1_I',
  }),
};

test('a SWE-PDB row: files from extra_info, test file read-only, -rA added to pytest', () => {
  const task = ok(DEBUG_ROW) as DebugTask;
  assert.equal(task.kind, 'debug');
  assert.equal(task.id, 'kodcode_Leetcode_1_I');
  assert.deepEqual(
    task.files.map((f) => f.path),
    ['solution.py', 'test.py'],
  );
  assert.deepEqual(task.readOnly, ['test.py']);
  assert.equal(task.entrypoint, 'python -m pytest --tb=no -s test.py');
  assert.equal(task.test.command, 'python -m pytest --tb=no -s test.py -rA');
  assert.equal(task.image, 'sandgym/base:latest');
  assert.equal(task.FAIL_TO_PASS, undefined);
  assert.equal((ok(DEBUG_ROW, { debugImage: 'my/image:1' }) as DebugTask).image, 'my/image:1');
});

test('a debugging row with .debugreadonly, test lists and a gold patch (sandgym bundled layout)', () => {
  const task = ok({
    ...DEBUG_ROW,
    extra_info: {
      entrypoint: 'python -m pytest -rA test.py',
      files: [
        { path: 'main_code.py', content: 'x = 1\n' },
        { path: 'checks.py', content: 'assert True\n' },
        { path: '.debugreadonly', content: 'checks.py\n' },
      ],
      task_name: 'mini',
    },
    patch: 'diff --git a/main_code.py b/main_code.py\n',
    FAIL_TO_PASS: '["checks.py::test_a"]',
    PASS_TO_PASS: '[]',
  }) as DebugTask;
  assert.deepEqual(task.readOnly, ['checks.py']);
  assert.equal(task.test.command, 'python -m pytest -rA test.py');
  assert.deepEqual(task.FAIL_TO_PASS, ['checks.py::test_a']);
  assert.deepEqual(task.PASS_TO_PASS, []);
  assert.equal(task.repo, 'mini');
});

test('debugging files may not leave the task directory', () => {
  for (const path of ['../etc/passwd', '/etc/passwd', 'a/../../b']) {
    const result = parseTaskRow({ ...DEBUG_ROW, extra_info: { files: [{ path, content: '' }] } });
    assert.equal(!result.ok && result.problem.field, 'extra_info.files.0.path', path);
  }
});

test('kinds are told apart by their columns; unknown rows say what is expected', () => {
  assert.equal(detectKind(SWE_ROW), 'swe');
  assert.equal(detectKind(R2E_ROW), 'r2e');
  assert.equal(detectKind(DEBUG_ROW), 'debug');
  assert.equal(detectKind({ ...DEBUG_ROW, FAIL_TO_PASS: '[]' }), 'debug');
  const unknown = parseTaskRow({ title: 'x' });
  assert.equal(unknown.ok, false);
  if (!unknown.ok) assert.match(unknown.problem.message, /instance_id.*expected_output_json.*extra_info/);
  assert.equal(parseTaskRow([1, 2]).ok, false);
  assert.equal((ok({ title: 'x', ...SWE_ROW }, { kind: 'swe' }) as SweTask).kind, 'swe');
});
