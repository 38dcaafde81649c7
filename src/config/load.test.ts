import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { isConfigError } from '../errors.ts';
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
