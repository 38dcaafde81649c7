/**
 * sandgym's forward pass of Hugging Face checkpoints against transformers' own. The tiny random models
 * and their logits (fixtures/hf-tiny/) were made once by `scripts/make-qwen3-tiny.py` with transformers
 * and torch; this test only reads them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EngineCompletionBackend } from '../../llm/engine-completion-backend.ts';
import { HfCausalLM } from './causal-lm.ts';

const FIXTURES = new URL('../../llm/fixtures/hf-tiny/', import.meta.url).pathname;

for (const [name, what] of [
  ['qwen3', 'Qwen3 (q/k norm, GQA, head_dim ≠ hidden/heads, tied embeddings, float32)'],
  ['llama', 'Llama (GQA, untied head, bfloat16 weights)'],
] as const) {
  describe(`HfCausalLM: ${what}`, () => {
    const dir = `${FIXTURES}${name}`;
    const golden = JSON.parse(readFileSync(`${dir}/logits.json`, 'utf8')) as {
      prompt: number[];
      logits: number[][];
    };

    it('gives the logits transformers gives, within 1e-4 at every position', async () => {
      const model = await HfCausalLM.load(dir);
      const logits = model.forward(golden.prompt);
      let worst = 0;
      logits.forEach((row, t) => {
        row.forEach((v, i) => {
          worst = Math.max(worst, Math.abs(v - golden.logits[t]![i]!));
        });
      });
      assert.ok(worst < 1e-4, `largest difference ${worst}`);
    });

    it('samples through the engine completion backend: stop ids end a turn, logprobs match the logits', async () => {
      const model = await HfCausalLM.load(dir);
      const backend = new EngineCompletionBackend(model);
      const greedy = await backend.complete(golden.prompt, {
        maxTokens: 5,
        temperature: 0,
        stopTokenIds: [],
      });
      const expectedFirst = golden.logits.at(-1)!.indexOf(Math.max(...golden.logits.at(-1)!));
      assert.equal(greedy.completionIds[0], expectedFirst, 'greedy takes the argmax of the last logits');
      assert.equal(greedy.completionIds.length, 5);
      assert.equal(greedy.finishReason, 'length');
      const stopped = await backend.complete(golden.prompt, {
        maxTokens: 5,
        temperature: 0,
        stopTokenIds: [expectedFirst],
      });
      assert.deepEqual(stopped.completionIds, [expectedFirst]);
      assert.equal(stopped.finishReason, 'stop');
      const sampled = await backend.complete(golden.prompt, {
        maxTokens: 1,
        temperature: 1,
        seed: 7,
        stopTokenIds: [],
      });
      const row = golden.logits.at(-1)!;
      const max = Math.max(...row);
      const logZ = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
      const token = sampled.completionIds[0]!;
      assert.ok(
        Math.abs(sampled.logprobs[0]! - (row[token]! - logZ)) < 1e-4,
        'logprob under softmax(logits)',
      );
    });
  });
}
