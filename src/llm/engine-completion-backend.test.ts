import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineCompletionBackend, type SamplingEngine } from './engine-completion-backend.ts';
import { isLlmApiError } from './llm-api-error.ts';

/** An engine that answers every prompt with `tokens`, recording what it was asked. */
function engine(tokens: number[], logprobs = tokens.map(() => -0.5)) {
  const calls: Parameters<SamplingEngine['sample']>[] = [];
  const sampling: SamplingEngine = {
    async sample(...args) {
      calls.push(args);
      return { sequences: [{ tokens, logprobs, stop_reason: 'length' }] };
    },
  };
  return { calls, backend: new EngineCompletionBackend(sampling) };
}

describe('EngineCompletionBackend', () => {
  it('asks the engine for one sequence in Tinker’s shapes and returns it', async () => {
    const { calls, backend } = engine([4, 5]);
    const out = await backend.complete([1, 2], {
      maxTokens: 2,
      temperature: 0.8,
      topP: 0.9,
      seed: 7,
      stopTokenIds: [9],
    });
    assert.deepEqual(out, { completionIds: [4, 5], logprobs: [-0.5, -0.5], finishReason: 'length' });
    assert.deepEqual(calls, [
      [[1, 2], { max_tokens: 2, temperature: 0.8, top_p: 0.9, seed: 7, stop: [9] }, 1],
    ]);
  });

  it('refuses stop strings, which the engine cannot take beside stop ids', async () => {
    const { calls, backend } = engine([4]);
    await assert.rejects(
      backend.complete([1], { maxTokens: 2, stop: ['</x>'], stopTokenIds: [9] }),
      /stop strings are not supported/,
    );
    assert.equal(calls.length, 0);
  });

  it('honours an abort that fired before or during sampling', async () => {
    const { calls, backend } = engine([4]);
    await assert.rejects(
      backend.complete([1], { maxTokens: 2, stopTokenIds: [9], signal: AbortSignal.abort() }),
      (e) => {
        assert.ok(isLlmApiError(e));
        assert.equal(e.kind, 'aborted');
        return true;
      },
    );
    assert.equal(calls.length, 0);
  });

  it('reports an engine that breaks the contract', async () => {
    await assert.rejects(
      engine([4, 5], [-1]).backend.complete([1], { maxTokens: 2, stopTokenIds: [9] }),
      /2 tokens but 1 logprobs/,
    );
    const empty = new EngineCompletionBackend({ sample: async () => ({ sequences: [] }) });
    await assert.rejects(empty.complete([1], { maxTokens: 2, stopTokenIds: [9] }), /no sequence/);
  });
});
