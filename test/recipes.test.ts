import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configProblems, loadConfig } from '../src/config/index.ts';

const RECIPES = new URL('../configs/recipes/', import.meta.url).pathname;

describe('configs/recipes', () => {
  const files = readdirSync(RECIPES).filter((f) => f.endsWith('.yaml'));

  it("has the seeds' experiments: SWE-PDB for Qwen3 4B/8B/14B and the rewrite-only ablation, SWE RL with RLOO", () => {
    assert.deepEqual(files.sort(), [
      'swe-pdb-qwen3-14b-rewrite.yaml',
      'swe-pdb-qwen3-14b.yaml',
      'swe-pdb-qwen3-4b.yaml',
      'swe-pdb-qwen3-8b.yaml',
      'swe-rl-qwen3-8b-rloo.yaml',
    ]);
  });

  for (const file of files) {
    it(`${file} loads, passes the config checks, and trains on Tinker from token-level samples of the same model`, () => {
      const config = loadConfig([join(RECIPES, file)]);
      assert.deepEqual(configProblems(config), []);
      assert.equal(config.trainer.engine, 'tinker');
      assert.equal(config.llm.backend, 'tokens');
      assert.equal(
        config.llm.tokenizer,
        config.engine.tinker.base_model,
        'the sampler and trainer share a tokenizer',
      );
      assert.equal(config.engine.tinker.tokenizer, config.engine.tinker.base_model);
      assert.match(config.engine.tinker.base_model, /^Qwen\/Qwen3-(4B|8B|14B)$/);
    });
  }

  it('the ablation differs from its base recipe only by the debugger and its name', () => {
    const base = loadConfig([join(RECIPES, 'swe-pdb-qwen3-14b.yaml')]);
    const ablation = loadConfig([join(RECIPES, 'swe-pdb-qwen3-14b-rewrite.yaml')]);
    assert.ok(base.env.tools.includes('pdb'));
    assert.deepEqual(
      ablation.env.tools,
      base.env.tools.filter((t) => t !== 'pdb'),
    );
    assert.deepEqual(
      {
        ...ablation,
        env: base.env,
        trainer: { ...ablation.trainer, experiment_name: base.trainer.experiment_name },
      },
      base,
    );
  });
});
