import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpCompletionBackend } from './http-completion-backend.ts';
import { isLlmApiError, type LlmApiError } from './llm-api-error.ts';
import { type ScriptedFault, type ScriptedReply, sequencePolicy } from './scripted-policy.ts';
import { ScriptedServer } from './scripted-server.ts';

const params = { maxTokens: 8, stopTokenIds: [99], temperature: 1 };
const fast = { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 2000 };

async function setup(steps: (ScriptedReply | ScriptedFault)[], maxModelLen?: number) {
  const server = await ScriptedServer.start({ policy: sequencePolicy(steps), model: 'tiny', maxModelLen });
  const backend = new HttpCompletionBackend({
    baseUrl: server.baseUrl,
    model: 'tiny',
    retry: fast,
    timeoutMs: 2000,
  });
  return { server, backend, done: () => server.close() };
}

async function rejection(promise: Promise<unknown>): Promise<LlmApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(isLlmApiError(e), `expected an LlmApiError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

/** A backend whose server always answers `body` with status 200. */
function answering(body: unknown): HttpCompletionBackend {
  return new HttpCompletionBackend({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'm',
    retry: fast,
    fetch: async () => new Response(JSON.stringify(body), { status: 200 }),
  });
}

describe('HttpCompletionBackend', () => {
  it('sends token ids with the vLLM/SGLang fields and reads ids and logprobs back', async () => {
    const { server, backend, done } = await setup([{ tokenIds: [7, 8, 99], logprobs: [-1, -0.5, -0.25] }]);
    try {
      const out = await backend.complete([1, 2, 3], { ...params, topP: 0.9, seed: 5, stop: ['</x>'] });
      assert.deepEqual(out, { completionIds: [7, 8, 99], logprobs: [-1, -0.5, -0.25], finishReason: 'stop' });
      const body = server.requests[0]!.body;
      assert.deepEqual(body.prompt, [1, 2, 3]);
      assert.equal(body.max_tokens, 8);
      assert.equal(body.top_p, 0.9);
      assert.equal(body.seed, 5);
      assert.deepEqual(body.stop, ['</x>']);
      assert.deepEqual(body.stop_token_ids, [99]);
      assert.equal(body.logprobs, 0);
      assert.equal(body.return_token_ids, true);
    } finally {
      await done();
    }
  });

  it('reports a completion cut at max_tokens as length', async () => {
    const { backend, done } = await setup([{ tokenIds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }]);
    try {
      const out = await backend.complete([1], params);
      assert.equal(out.completionIds.length, 8);
      assert.equal(out.finishReason, 'length');
    } finally {
      await done();
    }
  });

  it('retries rate limits, dropped connections and malformed answers', async () => {
    const faults: ScriptedFault[] = [
      { fault: 'rate-limit', retryAfterMs: 5 },
      { fault: 'drop-connection' },
      { fault: 'malformed-json' },
    ];
    const { server, backend, done } = await setup([...faults, { tokenIds: [4] }]);
    try {
      assert.deepEqual((await backend.complete([1], params)).completionIds, [4]);
      assert.equal(server.requests.length, 4);
    } finally {
      await done();
    }
  });

  it('does not retry a prompt the server finds too long, and keeps its words', async () => {
    const { server, backend, done } = await setup([{ tokenIds: [4] }], 10);
    try {
      const error = await rejection(backend.complete([1, 2, 3, 4, 5], params));
      assert.equal(error.status, 400);
      assert.equal(error.isRetryable, false);
      assert.match(error.message, /maximum context length is 10 tokens/);
      assert.equal(server.requests.length, 0);
    } finally {
      await done();
    }
  });

  it('explains a wrong model name', async () => {
    const { server, done } = await setup([{ tokenIds: [4] }]);
    try {
      const backend = new HttpCompletionBackend({ baseUrl: server.baseUrl, model: 'other', retry: fast });
      const error = await rejection(backend.complete([1], params));
      assert.equal(error.status, 404);
      assert.match(error.message, /model "other" is not served there/);
    } finally {
      await done();
    }
  });

  it('refuses answers that cannot be training data, without retrying', async () => {
    const choice = {
      text: 'x',
      finish_reason: 'stop',
      token_ids: [5, 6],
      logprobs: { token_logprobs: [-1, -2] },
    };
    const cases: [unknown, RegExp][] = [
      [
        { choices: [{ ...choice, token_ids: undefined }] },
        /no token_ids; the server must support return_token_ids/,
      ],
      [{ choices: [{ ...choice, logprobs: null }] }, /2 token ids but no logprobs/],
      [{ choices: [{ ...choice, logprobs: { token_logprobs: [-1] } }] }, /2 token ids but 1 logprobs/],
      [{ choices: [{ ...choice, prompt_token_ids: [1, 9] }] }, /other prompt ids than were sent/],
      [{ object: 'list' }, /not a text completion/],
    ];
    for (const [body, message] of cases) {
      const error = await rejection(answering(body).complete([1, 2], params));
      assert.equal(error.kind, 'malformed-response');
      assert.equal(error.isRetryable, false);
      assert.equal(error.attempts, 1);
      assert.match(error.message, message);
    }
  });

  it('rejects bad options', () => {
    assert.throws(
      () =>
        new HttpCompletionBackend({
          baseUrl: 'http://h/v1',
          model: 'm',
          providerOptions: { prompt: [1], top_k: 5 },
        }),
      /providerOptions may not set prompt; the sampler sets them/,
    );
    assert.throws(
      () => new HttpCompletionBackend({ baseUrl: 'ftp://h', model: 'm' }),
      /not an http\(s\) URL/,
    );
  });
});
