import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { POLICY_NAMES } from '../agent/policies/policy-sampler.ts';
import { isConfigError } from '../errors.ts';
import {
  advantageEstimatorNames,
  klEstimatorNames,
  lossAggregationModes,
  rolloutCorrectionLevels,
} from '../rl/index.ts';
import { PROVIDERS } from '../sandbox/index.ts';
import { configProblems, loadConfig, renderDefaultsYaml, totalSandboxes } from './index.ts';

describe('loadConfig', () => {
  it('gives every default with no input', () => {
    const c = loadConfig();
    assert.equal(c.sandbox.provider, 'local');
    assert.equal(c.rollout.n, 8);
    assert.equal(c.rollout.compact_filtering.mask_timeout, true);
    assert.equal(c.algorithm.kl_ctrl.type, 'fixed');
  });

  it('applies YAML files in order, then overrides', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-cfg-'));
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    await writeFile(a, 'rollout:\n  n: 4\n  n_parallel: 2\nalgorithm:\n  adv_estimator: rloo\n');
    await writeFile(b, 'rollout:\n  n: 2\n');
    const c = loadConfig([a, b], ['rollout.n_parallel=3', 'sandbox.limits.memory_mb=512']);
    assert.equal(c.rollout.n, 2);
    assert.equal(c.rollout.n_parallel, 3);
    assert.equal(c.algorithm.adv_estimator, 'rloo');
    assert.equal(c.sandbox.limits.memory_mb, 512);
    assert.equal(c.sandbox.limits.pids, 512, 'siblings of an overridden key keep their defaults');
  });

  it("reads back a run directory's config.yaml, version stamp included", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-cfg-'));
    const f = join(dir, 'config.yaml');
    const config = loadConfig([], ['rollout.n=3', 'data.train_files=[a.jsonl]']);
    await writeFile(f, stringify({ sandgym_version: '0.1.0', ...config }));
    assert.deepEqual(loadConfig([f]), config);
  });

  it('rejects unknown keys in files and wrong types, naming the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-cfg-'));
    const f = join(dir, 'bad.yaml');
    await writeFile(f, 'rollout:\n  nn: 4\n');
    assert.throws(
      () => loadConfig([f]),
      (e: unknown) => isConfigError(e) && /rollout/.test(e.message) && /nn/.test(e.message),
    );
    assert.throws(
      () => loadConfig([], ['rollout.n=many']),
      (e: unknown) => isConfigError(e) && /rollout\.n/.test(e.message),
    );
    assert.throws(() => loadConfig([join(dir, 'missing.yaml')]), /cannot read/);
  });

  it('runs the cross-field checks and reports them together', () => {
    assert.throws(
      () =>
        loadConfig(
          [],
          [
            'actor.ppo_max_token_len_per_gpu=1000',
            'trainer.n_gpus_per_node=3',
            'env.tools=[bash]',
            'actor.use_kl_loss=true',
          ],
        ),
      (e: unknown) =>
        isConfigError(e) &&
        /ppo_max_token_len_per_gpu \(1000\)/.test(e.message) &&
        /divisible by trainer.n_gpus_per_node/.test(e.message) &&
        /unknown tool "bash"/.test(e.message) &&
        /use algorithm.use_kl_in_reward=true/.test(e.message),
    );
  });
});

describe('config checks', () => {
  it('counts the sandboxes a run starts', () => {
    const c = loadConfig([], ['data.train_batch_size=4', 'rollout.n=8', 'trainer.total_epochs=2']);
    assert.equal(totalSandboxes(c, 36), 9 * 2 * 4 * 8);
    assert.deepEqual(configProblems(c), []);
  });
});

describe('configs/defaults.yaml', () => {
  it('is current (regenerate with npm run gen:defaults)', () => {
    const onDisk = readFileSync(new URL('../../configs/defaults.yaml', import.meta.url), 'utf8');
    assert.equal(onDisk, renderDefaultsYaml());
  });
});

describe('name-valued settings', () => {
  /** Loads with one override, returning the error message (or the config). */
  const attempt = (override: string) => {
    const t0 = performance.now();
    try {
      return { config: loadConfig([], [override]), ms: performance.now() - t0 };
    } catch (e) {
      assert.ok(isConfigError(e), `a ConfigError, not ${e}`);
      return { message: e.message, ms: performance.now() - t0 };
    }
  };

  it('accept every name the registries implement, and verl aliases as the name they stand for', () => {
    for (const n of advantageEstimatorNames.filter((x) => x !== 'gae'))
      assert.equal(attempt(`algorithm.adv_estimator=${n}`).config?.algorithm.adv_estimator, n);
    for (const n of klEstimatorNames)
      assert.equal(attempt(`algorithm.kl_penalty=${JSON.stringify(n)}`).config?.algorithm.kl_penalty, n);
    for (const n of lossAggregationModes)
      assert.equal(attempt(`actor.loss_agg_mode=${n}`).config?.actor.loss_agg_mode, n);
    for (const n of rolloutCorrectionLevels)
      assert.equal(
        attempt(`algorithm.rollout_correction.tis_mode=${n}`).config?.algorithm.rollout_correction.tis_mode,
        n,
      );
    for (const n of PROVIDERS) assert.equal(attempt(`sandbox.provider=${n}`).config?.sandbox.provider, n);
    for (const n of POLICY_NAMES) assert.equal(attempt(`llm.policy=${n}`).config?.llm.policy, n);
    for (const n of ['ppo', 'importance_sampling', 'cispo'])
      assert.equal(attempt(`actor.loss_fn=${n}`).config?.actor.loss_fn, n);
    assert.equal(attempt('actor.loss_fn=vanilla').config?.actor.loss_fn, 'ppo', "verl's default policy loss");
    assert.equal(attempt('algorithm.kl_penalty=low_var_kl').config?.algorithm.kl_penalty, 'low_var_kl');
    assert.equal(attempt('algorithm.kl_penalty=mse').config?.algorithm.kl_penalty, 'mse');
  });

  it('refuse a typo at load, in well under a second, naming the valid names and the nearest one', () => {
    const cases: [string, string][] = [
      [
        'algorithm.adv_estimator=grpoo',
        'algorithm.adv_estimator: unknown value "grpoo"; did you mean "grpo"? (valid: grpo, rloo, reinforce, reinforce_plus_plus, reinforce_plus_plus_baseline)',
      ],
      [
        'algorithm.kl_penalty=low_var_k',
        'algorithm.kl_penalty: unknown value "low_var_k"; did you mean "low_var_kl"? (valid: k1, kl, abs, k2, mse, k3, low_var_kl, k1+, kl+, abs+, k3+, low_var_kl+)',
      ],
      [
        'actor.loss_agg_mode=token_mean',
        'actor.loss_agg_mode: unknown value "token_mean"; did you mean "token-mean"? (valid: token-mean, seq-mean-token-sum, seq-mean-token-mean, seq-mean-token-sum-norm)',
      ],
      [
        'actor.loss_fn=gspo',
        'actor.loss_fn: unknown value "gspo" (valid: ppo, importance_sampling, cispo, vanilla)',
      ],
      [
        'algorithm.rollout_correction.tis_mode=tokens',
        'algorithm.rollout_correction.tis_mode: unknown value "tokens"; did you mean "token"? (valid: none, token, sequence)',
      ],
      [
        'sandbox.provider=dcoker',
        'sandbox.provider: unknown value "dcoker"; did you mean "docker"? (valid: local, docker, e2b)',
      ],
      [
        'algorithm.adv_estimator=gae',
        'algorithm.adv_estimator: "gae" is not available: gae needs critic values V(s_t) from a value model, and sandgym trains no critic; use an outcome estimator such as grpo or rloo',
      ],
    ];
    for (const [override, line] of cases) {
      const { message, ms } = attempt(override);
      assert.equal(message, `invalid config:\n  ${line}`);
      assert.ok(ms < 1000, `${override}: ${ms} ms`);
    }
  });

  it('takes new keys (+key=value) only where free-form settings go, and says so elsewhere', () => {
    assert.deepEqual(
      loadConfig([], ['+llm.extra_body.top_k=20', '+llm.extra_body.repetition_penalty=1.1']).llm.extra_body,
      { top_k: 20, repetition_penalty: 1.1 },
    );
    assert.deepEqual(loadConfig([], ['+trainer.tags.team=rl', '+trainer.tags.attempt=3']).trainer.tags, {
      team: 'rl',
      attempt: '3',
    });
    assert.equal(
      attempt('+rollout.nn=4').message,
      'invalid config:\n  rollout.nn: unknown key; did you mean "n"? (known in rollout: n, n_parallel, ' +
        'create_concurrency, fork, warm_pool, retry_limit, max_error_fraction, compact_filtering; new keys go only under llm.extra_body, trainer.tags)',
    );
    assert.match(
      attempt('+foo=1').message ?? '',
      /^invalid config:\n {2}foo: unknown key \(known in the top level: sandbox,/,
    );
    assert.match(
      attempt('llm.extra_body.top_k=20').message ?? '',
      /unknown key "llm.extra_body.top_k" \(known: none yet\); use \+llm.extra_body.top_k=… to add a new key/,
    );
  });
});
