import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { parseTaskRow, type Task } from '../tasks/index.ts';
import { buildEvalPlan, recordTestExitCode } from './eval-script.ts';
import { gradeLog } from './grade-log.ts';
import { createTinyRepo, GOLD_PATCH, tinyTask } from './testing/tiny-task.ts';

const root = mkdtempSync(join(tmpdir(), 'sandgym-eval-script-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs a plan on this host, as the sandbox would: files written, the command run, output captured. */
function runPlan(task: Task, harnessDir: string): string {
  const plan = buildEvalPlan(task, harnessDir);
  for (const file of plan.files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content);
  }
  try {
    return execSync(plan.command, {
      cwd: task.test.workdir,
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
  } catch (e) {
    return (e as { stdout: string }).stdout;
  }
}

test('the generated script, run for real: test patch applied, markers, exit code, test files reset', () => {
  const repo = join(root, 'repo');
  const task = tinyTask(createTinyRepo(repo), { workdir: repo });
  const plan = buildEvalPlan(task, join(root, 'h1'));
  assert.deepEqual(
    plan.files.map((f) => f.path),
    [join(root, 'h1', 'test.patch'), join(root, 'h1', 'eval.sh')],
  );
  assert.match(plan.files[1]!.content, /^#!\/bin\/bash\nset -uxo pipefail\n/);

  const before = runPlan(task, join(root, 'h1'));
  assert.match(before, /\+ : '>>>>> Start Test Output'/);
  assert.match(before, />>>>> Test Exit Code: 1/);
  const unresolved = gradeLog(task, before).grade;
  assert.deepEqual(
    [unresolved.status, unresolved.f2p.failed, unresolved.p2p.passed],
    ['unresolved', ['tests/test_calc.py::test_add'], ['tests/test_calc.py::test_mul']],
  );
  assert.equal(
    execSync('git status --porcelain', { cwd: repo, encoding: 'utf8' }),
    '',
    'test files reset afterwards',
  );

  execSync('git apply -', { cwd: repo, input: GOLD_PATCH });
  const fixed = runPlan(task, join(root, 'h2'));
  assert.match(fixed, />>>>> Test Exit Code: 0/);
  assert.equal(gradeLog(task, fixed).grade.status, 'resolved');
});

test('a test file the agent broke is reset to base_commit before the tests run', () => {
  const repo = join(root, 'repo-edited');
  const task = tinyTask(createTinyRepo(repo), { workdir: repo });
  execSync('git apply -', { cwd: repo, input: GOLD_PATCH });
  writeFileSync(join(repo, 'tests', 'test_calc.py'), 'def test_mul():\n    assert False\n');
  assert.equal(gradeLog(task, runPlan(task, join(root, 'h3'))).grade.status, 'resolved');
});

test('a missing base commit prints "Reset Failed", which makes the run an error', () => {
  const repo = join(root, 'repo-bad-base');
  createTinyRepo(repo);
  const task = tinyTask('0'.repeat(40), { workdir: repo });
  const { grade } = gradeLog(task, runPlan(task, join(root, 'h4')));
  assert.deepEqual([grade.status, grade.error], ['error', 'reset_failed']);
});

test("a debugging task's read-only files are written back before the tests", () => {
  const dir = join(root, 'debug');
  mkdirSync(dir);
  const row = {
    task_id: 'debug_add',
    problem_statement: 'Fix it.',
    extra_info: {
      entrypoint: 'python3 -m pytest -p no:cacheprovider test.py',
      files: [
        { path: 'solution.py', content: 'def add(a, b):\n    return a - b\n' },
        {
          path: 'test.py',
          content: 'from solution import *\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
        },
      ],
    },
  };
  const parsed = parseTaskRow(row);
  assert.ok(parsed.ok);
  const task = { ...parsed.task, test: { ...parsed.task.test, workdir: dir } } as Task;
  writeFileSync(join(dir, 'solution.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(dir, 'test.py'), 'def test_add():\n    pass\n');
  const log = runPlan(task, join(root, 'h5'));
  assert.match(log, /1 failed/);
  assert.equal(
    gradeLog(task, log).grade.status,
    'unresolved',
    'the weakened test was replaced by the original',
  );
  writeFileSync(join(dir, 'solution.py'), 'def add(a, b):\n    return a + b\n');
  assert.equal(gradeLog(task, runPlan(task, join(root, 'h6'))).grade.status, 'resolved');
});

test("a SWE-bench 5 row's own eval script runs as published, exit-code lines added", () => {
  const script =
    "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest -rA t.py\n: '>>>>> End Test Output'\ngit checkout abc t.py\n";
  assert.equal(
    recordTestExitCode(script),
    "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest -rA t.py\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho \">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE\"\ngit checkout abc t.py\n",
  );
  const task = tinyTask('a'.repeat(40));
  task.test = { ...task.test, evalScript: script };
  const plan = buildEvalPlan(task, '/x');
  assert.deepEqual(plan.files, [{ path: '/x/eval.sh', content: recordTestExitCode(script) }]);
});
