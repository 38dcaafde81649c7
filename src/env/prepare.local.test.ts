import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import { prepareSandbox } from './prepare.ts';
import { scrubGitHistory } from './scrub-git-history.ts';
import { buildCalcRepoImage, type CalcRepoImage } from './testing/calc-repo.ts';
import { DEBUG_SOLUTION, DEBUG_TEST, debugTask, r2eTask, sweTask } from './testing/fixture-tasks.ts';
import { BASE_IMAGE, localTestEnvironment, sh } from './testing/provider-sandboxes.ts';

const local = await localTestEnvironment();

describe('prepareSandbox on the local provider', { skip: local.skip ?? false, timeout: 300_000 }, () => {
  let provider: SandboxProvider;
  let calc: CalcRepoImage;
  const open: Sandbox[] = [];
  const keep = (s: Sandbox) => {
    open.push(s);
    return s;
  };

  before(async () => {
    provider = await local.provider();
    calc = await buildCalcRepoImage(provider);
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    await provider.close();
  });

  describe('a SWE-bench task whose image leaks the fix', () => {
    let s: Sandbox;
    before(async () => {
      const task = sweTask({ image: calc.image, baseCommit: calc.baseCommit, testPatch: calc.testPatch });
      s = keep(await prepareSandbox(task, provider));
    });

    it('the fixture really leaks it before preparing', async () => {
      const raw = keep(await provider.create({ image: calc.image }));
      assert.match(await sh(raw, 'git log --all --format=%H'), new RegExp(calc.futureCommit));
      assert.match(
        await sh(raw, 'git cat-file --batch-all-objects --batch-check'),
        new RegExp(calc.futureBlob),
      );
    });

    it('leaves HEAD at base_commit with a clean working tree', async () => {
      assert.equal((await sh(s, 'git rev-parse HEAD')).trim(), calc.baseCommit);
      assert.equal(await sh(s, 'git status --porcelain --untracked-files=all'), '');
    });

    it('closes every git road to the future commit', async () => {
      assert.equal((await sh(s, 'git log --all --format=%H')).trim(), calc.baseCommit);
      const objects = await sh(s, 'git cat-file --batch-all-objects --batch-check');
      assert.doesNotMatch(objects, new RegExp(calc.futureCommit));
      assert.doesNotMatch(objects, new RegExp(calc.futureBlob), 'the fixed file is gone too');
      assert.equal(
        await sh(s, 'git tag; git remote; git stash list; git reflog; git branch -a --format="%(refname)"'),
        'refs/heads/main\n',
      );
      const show = await s.exec(['git', 'show', calc.futureCommit], { cwd: '/testbed' });
      assert.notEqual(show.exitCode, 0);
    });

    it("removes the test patch's new files and resets the ones it changes", async () => {
      assert.equal((await s.exec('test -e tests/test_new.py', { cwd: '/testbed' })).exitCode, 1);
      assert.doesNotMatch((await s.readFile('/testbed/tests/test_calc.py')).toString(), /test_double/);
    });

    it('is a cheap no-op to scrub again', async () => {
      assert.equal(await scrubGitHistory(s, '/testbed', { timeoutMs: 60_000 }), 'clean');
    });

    it('gives the grader the image as published, with the test files ready for the test patch', async () => {
      const task = sweTask({ image: calc.image, baseCommit: calc.baseCommit, testPatch: calc.testPatch });
      const g = keep(await prepareSandbox(task, provider, { purpose: 'grading' }));
      assert.match(await sh(g, 'git tag'), /v1\.0/, 'history untouched');
      assert.equal((await g.exec('test -e tests/test_new.py', { cwd: '/testbed' })).exitCode, 1);
      await sh(g, `cat > /tmp/t.patch <<'EOF'\n${calc.testPatch}EOF\ngit apply --check /tmp/t.patch`);
    });
  });

  it('refuses an image whose repository is not at base_commit, closing the sandbox', async () => {
    const task = sweTask({ image: calc.image, baseCommit: 'f'.repeat(40), testPatch: calc.testPatch });
    await assert.rejects(prepareSandbox(task, provider), /is at [0-9a-f]{40}, not at base_commit f{40}/);
  });

  it("hides R2E-Gym's tests and script, committing the working tree as the agent's baseline", async () => {
    const img = keep(await provider.create({ image: BASE_IMAGE }));
    await sh(
      img,
      `mkdir -p /testbed /r2e_tests && cd /testbed && git init -q -b main .
echo 'def f(): return 1' > mod.py && printf '#!/bin/sh\\npytest /r2e_tests\\n' > run_tests.sh
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
echo 'def test_f(): pass' > /r2e_tests/test_1.py && ln -s /r2e_tests r2e_tests`,
      '/',
    );
    await img.snapshot('sandgym-test/env-r2e:fixture');
    const s = keep(await prepareSandbox(r2eTask('sandgym-test/env-r2e:fixture'), provider));
    assert.equal(await sh(s, 'ls -A /testbed; ls -A / | grep r2e || true'), '.git\nmod.py\n');
    assert.equal(await sh(s, 'git status --porcelain'), '');
    assert.equal(await sh(s, 'git log --format=%s'), 'sandgym: the task as the agent starts it\nbase\n');
  });

  it("writes a debug task's files into a one-commit repository that ignores build noise", async () => {
    const s = keep(await prepareSandbox(debugTask(), provider));
    assert.equal((await s.readFile('/testbed/solution.py')).toString(), DEBUG_SOLUTION);
    assert.equal((await s.readFile('/testbed/test.py')).toString(), DEBUG_TEST);
    assert.equal(await sh(s, 'git log --format=%s'), 'fixture-debug-add: the task as given\n');
    await sh(s, 'python3 -m pytest -q test.py >/dev/null || true');
    assert.equal(
      await sh(s, 'git status --porcelain --untracked-files=all'),
      '',
      'no __pycache__ or .pytest_cache',
    );
  });
});
