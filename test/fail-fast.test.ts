import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from './train-support.ts';

/**
 * Bad settings stop `sandgym train` at load, before a run directory or a sandbox exists. The time to
 * the error is measured by `npm run bench:failfast` (a test on a loaded machine cannot time it fairly);
 * here: the exact message, exit code 1, and nothing made.
 */
describe('sandgym train with a bad setting', () => {
  const cases: [string, string][] = [
    [
      'algorithm.adv_estimator=grpoo',
      'algorithm.adv_estimator: unknown value "grpoo"; did you mean "grpo"? (valid: grpo, rloo, reinforce, reinforce_plus_plus, reinforce_plus_plus_baseline)',
    ],
    [
      'algorithm.adv_estimator=gae',
      'algorithm.adv_estimator: "gae" is not available: gae needs critic values V(s_t) from a value model, and sandgym trains no critic; use an outcome estimator such as grpo or rloo',
    ],
    [
      '+rollout.nn=4',
      'rollout.nn: unknown key; did you mean "n"? (known in rollout: n, n_parallel, create_concurrency, fork, warm_pool, retry_limit, max_error_fraction, compact_filtering; new keys go only under llm.extra_body, trainer.tags)',
    ],
  ];
  for (const [override, line] of cases) {
    it(`${override}: stops at load with the valid names, making nothing`, () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'sg-failfast-')), 'run');
      const r = spawnSync(process.execPath, [CLI, 'train', '-o', dir, override], { encoding: 'utf8' });
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr, `sandgym: invalid config:\n  ${line}\n`);
      assert.equal(existsSync(dir), false, 'no run directory');
    });
  }
});
