import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Sandbox, SandboxProvider } from '../../sandbox/index.ts';
import { parseTaskRow, type Task } from '../../tasks/index.ts';
import { evaluate } from '../evaluate.ts';
import { BROKEN_PATCH, createTinyRepo, GOLD_PATCH, tinyTask } from './tiny-task.ts';

/**
 * The harness against a real sandbox provider: a tiny real repository evaluated with the gold patch
 * (resolved), the empty patch (unresolved), a patch that cannot apply, a test run past its deadline and a
 * sandbox that died (errors); and a SWE-PDB debugging task with its `python` entrypoint on Debian.
 * Each provider's test file calls this with its factory; it skips, saying why, when the provider cannot run.
 */
export interface IntegrationTarget {
  name: string;
  provider: () => Promise<SandboxProvider>;
  /** An image with bash, git, patch, python3 and pytest: `sandgym/base`. */
  image: string;
  skip?: string | undefined;
}

export function runEvaluateIntegration(target: IntegrationTarget): void {
  describe(`evaluate on ${target.name}`, { skip: target.skip ?? false, timeout: 600_000 }, () => {
    let provider: SandboxProvider;
    let hostRepo: string;
    let task: Task;
    const open: Sandbox[] = [];

    /** A fresh sandbox holding the task's repository at /testbed, as a SWE-bench image would. */
    async function sandboxWithRepo(): Promise<Sandbox> {
      const sandbox = await provider.create({ image: target.image, workdir: '/' });
      open.push(sandbox);
      await sandbox.uploadDir(hostRepo, '/testbed');
      return sandbox;
    }

    before(async () => {
      provider = await target.provider();
      hostRepo = await mkdtemp(join(tmpdir(), 'sandgym-evaluate-'));
      task = tinyTask(createTinyRepo(hostRepo), { image: target.image });
    });
    after(async () => {
      await Promise.all(open.map((s) => s.close()));
      await provider?.close();
      if (hostRepo) await rm(hostRepo, { recursive: true, force: true });
    });

    it('the gold patch resolves', async () => {
      const result = await evaluate(await sandboxWithRepo(), task, { patch: GOLD_PATCH, timeoutMs: 120_000 });
      assert.equal(result.grade.status, 'resolved', `${result.grade.reason}\n${result.log}`);
      assert.deepEqual(result.grade.f2p, { passed: ['tests/test_calc.py::test_add'], failed: [] });
      assert.match(result.log, />>>>> Applied Patch \(git apply --verbose\)/);
      assert.equal(result.report.get('tests/test_calc.py::test_mul')?.status, 'PASSED');
    });

    it('the empty patch does not resolve', async () => {
      const result = await evaluate(await sandboxWithRepo(), task, { patch: '', timeoutMs: 120_000 });
      assert.equal(result.grade.status, 'unresolved', result.log);
      assert.deepEqual(result.grade.f2p.failed, ['tests/test_calc.py::test_add']);
      assert.deepEqual(result.grade.p2p.passed, ['tests/test_calc.py::test_mul']);
    });

    it('a patch that cannot apply is an error, not a 0', async () => {
      const sandbox = await sandboxWithRepo();
      const result = await evaluate(sandbox, task, { patch: BROKEN_PATCH, timeoutMs: 120_000 });
      assert.deepEqual(
        [result.grade.status, result.grade.error],
        ['error', 'patch_apply_failed'],
        result.log,
      );
      const status = await sandbox.exec('git status --porcelain --untracked-files=all', { cwd: '/testbed' });
      assert.equal(status.stdout, '', 'the failed attempts left nothing behind');
    });

    it('tests past their deadline are an error', async () => {
      const slow = { ...task, test: { ...task.test, command: 'sleep 60' } } as Task;
      const result = await evaluate(await sandboxWithRepo(), slow, { timeoutMs: 1500 });
      assert.deepEqual([result.grade.status, result.grade.error], ['error', 'tests_timed_out']);
    });

    it('a sandbox that died is an error', async () => {
      const sandbox = await sandboxWithRepo();
      await sandbox.close();
      const result = await evaluate(sandbox, task, { patch: GOLD_PATCH });
      assert.deepEqual([result.grade.status, result.grade.error], ['error', 'sandbox_failed']);
    });

    it("a SWE-PDB debugging task: the agent's tree graded in place, its test edits undone", async () => {
      const parsed = parseTaskRow({
        task_id: 'kodcode_demo_1',
        problem_statement: 'Investigate the repository, find the bug, and fix it so that all tests pass.',
        image: target.image,
        extra_info: {
          entrypoint: 'python -m pytest --tb=no -s test.py',
          files: [
            { path: 'solution.py', content: 'def double(x):\n    return x + x + 1\n' },
            {
              path: 'test.py',
              content:
                'from solution import *\n\n\ndef test_one():\n    assert double(1) == 2\n\n\ndef test_zero():\n    assert double(0) == 0\n',
            },
          ],
        },
      });
      assert.ok(parsed.ok);
      const sandbox = await provider.create({ image: target.image, workdir: '/' });
      open.push(sandbox);
      for (const f of (parsed.task as Extract<Task, { kind: 'debug' }>).files) {
        await sandbox.writeFile(`/testbed/${f.path}`, f.content);
      }
      const before = await evaluate(sandbox, parsed.task);
      assert.equal(before.grade.status, 'unresolved', before.log);
      assert.equal(before.grade.reason, '0 of 2 tests passed');
      await sandbox.writeFile('/testbed/test.py', 'def test_one():\n    pass\n');
      assert.equal((await evaluate(sandbox, parsed.task)).grade.status, 'unresolved', 'test.py is restored');
      await sandbox.writeFile('/testbed/solution.py', 'def double(x):\n    return 2 * x\n');
      const fixed = await evaluate(sandbox, parsed.task);
      assert.equal(fixed.grade.status, 'resolved', fixed.log);
    });
  });
}
