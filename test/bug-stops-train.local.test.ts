import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, microData, ROOT } from './train-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

describe('a bug in training code stops sandgym train', { skip, timeout: 300_000 }, () => {
  it('with its stack, instead of turning into masked episodes; the run stays resumable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-bug-train-'));
    // A user's advantage estimator (a config plugin) with a bug: it reads a field the input lacks.
    const plugin = join(dir, 'buggy-estimator.mjs');
    writeFileSync(
      plugin,
      "export function register(s) { s.registerAdvantageEstimator('buggy', (input) => input.values.length); }\n",
    );
    const data = await microData(2, 0);
    const run = join(dir, 'run');
    const r = spawnSync(
      process.execPath,
      [
        CLI,
        'train',
        join(ROOT, 'configs', 'micro.yaml'),
        '-o',
        run,
        `plugins=[${plugin}]`,
        'algorithm.adv_estimator=buggy',
        `data.train_files=[${join(data, 'train.jsonl')}]`,
        'data.val_files=[]',
        'data.train_batch_size=2',
        'rollout.n=2',
        'engine.reference.tokenizer=byte',
        'engine.reference.n_layers=1',
        'engine.reference.d_model=32',
        'engine.reference.n_heads=2',
        'agent.max_steps=1',
        'trainer.total_training_steps=1',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stderr,
      /sandgym: unexpected error\nTypeError: Cannot read properties of undefined \(reading 'length'\)\n {4}at .*buggy-estimator\.mjs/,
    );
    assert.ok(
      existsSync(join(run, 'rollouts', 'step-000001.jsonl')),
      "the step's episodes are kept for the rerun",
    );
  });
});
