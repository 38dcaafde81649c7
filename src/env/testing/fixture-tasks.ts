import { type DebugTask, parseTaskRow, type R2eTask, type SweTask, type Task } from '../../tasks/index.ts';

/**
 * Small tasks for the environment's tests, made from dataset rows by the tasks module's own parser so
 * they are exactly what a loaded dataset gives.
 */

function parse(row: Record<string, unknown>): Task {
  const r = parseTaskRow(row);
  if (!r.ok) throw new Error(`fixture row is not a task: ${r.problem.field}: ${r.problem.message}`);
  return r.task;
}

/** A KodCode-style debugging task: `add` subtracts; test.py (read-only) checks it. */
export const DEBUG_SOLUTION = [
  'def add(a, b):',
  '    """Return the sum of a and b."""',
  '    total = a - b',
  '    return total',
  '',
  '',
  'class Box:',
  '    def __init__(self, value):',
  '        self.value = value',
  '',
].join('\n');

export const DEBUG_TEST = [
  'from solution import *',
  '',
  '',
  'def test_add():',
  '    assert add(1, 2) == 3',
  '',
  '',
  'def test_box():',
  '    assert Box(3).value == 3',
  '',
].join('\n');

export function debugTask(image = 'sandgym/base:latest'): DebugTask {
  return parse({
    task_id: 'fixture-debug-add',
    problem_statement: 'Investigate the repository, find the bug, and fix it so that all tests pass.',
    image,
    extra_info: {
      entrypoint: 'python -m pytest --tb=no -s test.py',
      task_name: 'fixture-debug-add',
      files: [
        { path: 'solution.py', content: DEBUG_SOLUTION },
        { path: 'test.py', content: DEBUG_TEST },
      ],
    },
  }) as DebugTask;
}

export function sweTask(fields: {
  image: string;
  baseCommit: string;
  testPatch: string;
  patch?: string;
}): SweTask {
  return parse({
    instance_id: 'fixture__calc-1',
    repo: 'fixture/calc',
    base_commit: fields.baseCommit,
    patch: fields.patch ?? '',
    test_patch: fields.testPatch,
    problem_statement: 'double(x) returns x + 1 instead of twice x.',
    version: '0.1',
    FAIL_TO_PASS: '["tests/test_calc.py::test_double"]',
    PASS_TO_PASS: '[]',
    image: fields.image,
  }) as SweTask;
}

export function r2eTask(image: string): R2eTask {
  return parse({
    repo_name: 'calc',
    docker_image: image,
    commit_hash: 'abc123',
    problem_statement: '[ISSUE]double(x) is wrong[/ISSUE]',
    expected_output_json: '{"r2e_tests/test_1.py::test_double": "PASSED"}',
  }) as R2eTask;
}
