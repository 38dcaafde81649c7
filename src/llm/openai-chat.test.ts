import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { isLlmApiError, type LlmApiError } from './llm-api-error.ts';
import { OpenAIChatSampler, type OpenAIChatSamplerOptions } from './openai-chat.ts';
import { type ScriptedFault, type ScriptedReply, samplerPolicy, sequencePolicy } from './scripted-policy.ts';
import { ScriptedServer } from './scripted-server.ts';
import type { SampleRequest, Sampler, ToolSpec } from './types.ts';

const fast = { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 5000 };

const bashTool: ToolSpec = {
  type: 'function',
  function: { name: 'execute_bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
};

const request: SampleRequest = {
  messages: [
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: 'Run the tests.' },
  ],
  tools: [bashTool],
  maxTokens: 64,
  temperature: 0.5,
};

const toolReply: ScriptedReply = {
  content: 'Running them.',
  toolCalls: [{ id: 'call_a', name: 'execute_bash', arguments: { cmd: 'pytest -x' } }],
  tokenIds: [5, 6, 7],
  logprobs: [-0.5, -0.25, 0],
  promptTokenIds: [1, 2, 3, 4],
};

/** A scripted server playing `steps` and a sampler pointed at it; both closed by `done`. */
async function setup(
  steps: (ScriptedReply | ScriptedFault)[],
  options: Partial<OpenAIChatSamplerOptions> = {},
) {
  const server = await ScriptedServer.start({
    policy: sequencePolicy(steps),
    model: 'tiny',
    apiKey: 'sk-test',
  });
  const retries: number[] = [];
  const sampler = new OpenAIChatSampler({
    baseUrl: server.baseUrl,
    apiKey: 'sk-test',
    model: 'tiny',
    retry: fast,
    timeoutMs: 5000,
    onRetry: (info) => retries.push(info.delayMs),
    ...options,
  });
  return { server, sampler, retries, done: () => server.close() };
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

describe('OpenAIChatSampler', () => {
  it('sends the conversation and reads content, tool calls, finish reason and usage', async () => {
    const { server, sampler, done } = await setup([toolReply], { providerOptions: { top_k: 20 } });
    try {
      const result = await sampler.sample(request);
      assert.equal(result.message.content, 'Running them.');
      assert.deepEqual(result.message.tool_calls, [
        {
          id: 'call_a',
          type: 'function',
          function: { name: 'execute_bash', arguments: '{"cmd":"pytest -x"}' },
        },
      ]);
      assert.equal(result.finishReason, 'tool_calls');
      assert.equal(result.rawFinishReason, 'tool_calls');
      assert.deepEqual(result.usage, { promptTokens: 4, completionTokens: 3 });
      assert.equal(result.tokens, undefined, 'token ids only when asked for');
      const sent = server.requests[0]!.body;
      assert.equal(sent.model, 'tiny');
      assert.equal(sent.max_tokens, 64);
      assert.equal(sent.temperature, 0.5);
      assert.equal(sent.top_k, 20);
      assert.deepEqual(sent.tools, [bashTool]);
      assert.deepEqual(sent.messages, request.messages);
    } finally {
      await done();
    }
  });

  it('keeps the token ids and logprobs a vLLM-style server returns', async () => {
    const { server, sampler, done } = await setup([toolReply], { returnTokenIds: true });
    try {
      const result = await sampler.sample(request);
      assert.equal(server.requests[0]!.body.return_token_ids, true);
      assert.equal(server.requests[0]!.body.logprobs, true);
      assert.deepEqual(result.tokens, {
        promptIds: [1, 2, 3, 4],
        completionIds: [5, 6, 7],
        completionLogprobs: [-0.5, -0.25, 0],
      });
    } finally {
      await done();
    }
  });

  it('reads a streamed answer into the same result', async () => {
    const { server, sampler, done } = await setup([toolReply], { stream: true, returnTokenIds: true });
    try {
      const result = await sampler.sample(request);
      assert.equal(server.requests[0]!.body.stream, true);
      assert.equal(result.message.content, 'Running them.');
      assert.equal(result.message.tool_calls?.[0]?.function.arguments, '{"cmd":"pytest -x"}');
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.usage, { promptTokens: 4, completionTokens: 3 });
      assert.deepEqual(result.tokens?.completionIds, [5, 6, 7]);
      assert.deepEqual(result.tokens?.completionLogprobs, [-0.5, -0.25, 0]);
      assert.deepEqual(result.tokens?.promptIds, [1, 2, 3, 4]);
    } finally {
      await done();
    }
  });

  it('keeps the reasoning a reasoning parser split off (Qwen3 on vLLM), plain and streamed, and does not send it back', async () => {
    const reply = { reasoning: 'The test fails; look first.', content: 'Looking.' };
    for (const stream of [false, true]) {
      const { server, sampler, done } = await setup([reply, { content: 'ok' }], { stream });
      try {
        const result = await sampler.sample(request);
        assert.equal(result.message.reasoning_content, 'The test fails; look first.');
        assert.equal(result.message.content, 'Looking.');
        await sampler.sample({ ...request, messages: [...request.messages, result.message] });
        const sent = server.requests[1]!.body.messages as Record<string, unknown>[];
        assert.equal(sent.at(-1)?.content, 'Looking.');
        assert.equal('reasoning_content' in sent.at(-1)!, false);
      } finally {
        await done();
      }
    }
  });

  it('retries a 429 after the wait the server asks for', async () => {
    const { server, sampler, retries, done } = await setup([
      { fault: 'rate-limit', retryAfterMs: 120 },
      { content: 'ok' },
    ]);
    try {
      const result = await sampler.sample(request);
      assert.equal(result.message.content, 'ok');
      assert.equal(server.requests.length, 2);
      assert.ok(retries[0]! >= 120, `waited ${retries[0]} ms`);
    } finally {
      await done();
    }
  });

  it('honours Retry-After in seconds', async () => {
    const { sampler, retries, done } = await setup([
      { fault: 'rate-limit', retryAfterS: 1 },
      { content: 'ok' },
    ]);
    try {
      await sampler.sample(request);
      assert.ok(retries[0]! >= 1000, `waited ${retries[0]} ms`);
    } finally {
      await done();
    }
  });

  it('does not retry when the server asks for a longer pause than maxDelayMs', async () => {
    const { server, sampler, done } = await setup([
      { fault: 'rate-limit', retryAfterS: 60 },
      { content: 'ok' },
    ]);
    try {
      const error = await rejection(sampler.sample(request));
      assert.equal(error.status, 429);
      assert.equal(error.isRetryable, true);
      assert.equal(server.requests.length, 1);
    } finally {
      await done();
    }
  });

  it('retries 5xx, malformed JSON and dropped connections, then succeeds', async () => {
    const faults: ScriptedFault[] = [
      { fault: 'http-error', status: 503 },
      { fault: 'malformed-json' },
      { fault: 'drop-connection' },
    ];
    const { server, sampler, retries, done } = await setup([...faults, { content: 'finally' }]);
    try {
      const result = await sampler.sample(request);
      assert.equal(result.message.content, 'finally');
      assert.equal(server.requests.length, 4);
      assert.equal(retries.length, 3);
    } finally {
      await done();
    }
  });

  it('retries a stream cut in the middle', async () => {
    const { server, sampler, done } = await setup([{ fault: 'drop-connection' }, { content: 'whole' }], {
      stream: true,
    });
    try {
      const result = await sampler.sample(request);
      assert.equal(result.message.content, 'whole');
      assert.equal(server.requests.length, 2);
    } finally {
      await done();
    }
  });

  it('gives up after maxRetries, keeping status and body', async () => {
    const { server, sampler, done } = await setup(
      [{ fault: 'http-error', status: 500, message: 'engine died' }],
      {
        retry: { ...fast, maxRetries: 2 },
      },
    );
    try {
      const error = await rejection(sampler.sample(request));
      assert.equal(error.kind, 'http');
      assert.equal(error.status, 500);
      assert.equal(error.attempts, 3);
      assert.match(error.responseBody ?? '', /engine died/);
      assert.match(error.message, /HTTP 500.*engine died.*gave up after 3 attempts/);
      assert.equal(error.url, `${server.baseUrl}/chat/completions`);
      assert.equal(server.requests.length, 3);
    } finally {
      await done();
    }
  });

  it('times out a hanging server and retries', async () => {
    const { server, sampler, done } = await setup([{ fault: 'hang' }, { content: 'awake' }], {
      timeoutMs: 200,
    });
    try {
      const result = await sampler.sample(request);
      assert.equal(result.message.content, 'awake');
      assert.equal(server.requests.length, 2);
    } finally {
      await done();
    }
  });

  it('reports a timeout by its option name', async () => {
    const { sampler, done } = await setup([{ fault: 'hang' }], {
      timeoutMs: 150,
      retry: { ...fast, maxRetries: 0 },
    });
    try {
      const error = await rejection(sampler.sample(request));
      assert.equal(error.kind, 'timeout');
      assert.equal(error.isRetryable, true);
      assert.match(error.message, /within 150 ms.*timeoutMs/);
    } finally {
      await done();
    }
  });

  it('stops at once when the caller aborts', async () => {
    const { sampler, done } = await setup([{ fault: 'hang' }]);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const error = await rejection(sampler.sample({ ...request, signal: controller.signal }));
      assert.equal(error.kind, 'aborted');
      assert.equal(error.isRetryable, false);
    } finally {
      await done();
    }
  });

  it('explains a rejected API key without retrying', async () => {
    const { server, sampler, done } = await setup([{ content: 'never' }], { apiKey: 'sk-wrong' });
    try {
      const error = await rejection(sampler.sample(request));
      assert.equal(error.status, 401);
      assert.equal(error.isRetryable, false);
      assert.match(error.message, /API key was rejected/);
      assert.equal(server.requests.length, 0);
    } finally {
      await done();
    }
  });

  it('explains an unknown model or base URL', async () => {
    const { sampler, done } = await setup([{ content: 'never' }], { model: 'qwen-huge' });
    try {
      const error = await rejection(sampler.sample(request));
      assert.equal(error.status, 404);
      assert.match(error.message, /model "qwen-huge" is not served there or the base URL is wrong/);
      assert.match(error.message, /\/v1\/models lists the served models/);
    } finally {
      await done();
    }
  });

  it('reports a server that is not running', async () => {
    const { sampler, done } = await setup([{ content: 'never' }], { retry: { ...fast, maxRetries: 1 } });
    await done();
    const error = await rejection(sampler.sample(request));
    assert.equal(error.kind, 'network');
    assert.equal(error.attempts, 2);
    assert.match(error.message, /ECONNREFUSED.*is the server running/);
  });

  it('rejects bad options before any request', () => {
    const base = { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' };
    assert.throws(
      () => new OpenAIChatSampler({ ...base, providerOptions: { max_tokens: 5 } }),
      (e) => {
        assert.ok(isConfigError(e));
        assert.match(e.message, /"max_tokens".*request\.maxTokens/);
        return true;
      },
    );
    assert.throws(
      () => new OpenAIChatSampler({ ...base, baseUrl: 'localhost:8000' }),
      /not an http\(s\) URL/,
    );
    assert.throws(() => new OpenAIChatSampler({ ...base, model: '' }), /no model name/);
  });

  it('is its own session: it keeps no state', async () => {
    const { sampler, done } = await setup([{ content: 'x' }]);
    await done();
    assert.equal(sampler.session(), sampler);
  });

  it('reaches a policy written as a Sampler through real HTTP, malformed calls included', async () => {
    const seen: SampleRequest[] = [];
    const policy: Sampler = {
      session: () => policy,
      sample: async (req) => {
        seen.push(req);
        const call = {
          id: 'call_bad',
          type: 'function' as const,
          function: { name: 'file_editor', arguments: '{"command": ' },
        };
        return {
          message: { role: 'assistant', content: '', tool_calls: [call] },
          finishReason: 'tool_calls',
          rawFinishReason: 'tool_calls',
          usage: { promptTokens: 0, completionTokens: 0 },
          latencyMs: 0,
        };
      },
    };
    const server = await ScriptedServer.start({ policy: samplerPolicy(policy) });
    try {
      const sampler = new OpenAIChatSampler({
        baseUrl: server.baseUrl,
        model: 'scripted',
        stream: true,
        retry: fast,
      });
      const result = await sampler.sample(request);
      assert.deepEqual(seen[0]?.messages, request.messages);
      assert.deepEqual(seen[0]?.tools, [bashTool]);
      assert.equal(seen[0]?.maxTokens, 64);
      assert.deepEqual(result.message.tool_calls?.[0]?.function, {
        name: 'file_editor',
        arguments: '{"command": ',
      });
      assert.equal(result.finishReason, 'tool_calls');
    } finally {
      await server.close();
    }
  });
});
