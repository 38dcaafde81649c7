import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpCompletionBackend, loadChatTemplate, OpenAIChatSampler, TokenSampler } from '../../llm/index.ts';
import { ASSETS_DIR } from '../reference/index.ts';
import { startServer, tinySamplerWeights } from '../tinker/test-support.ts';

// biome-ignore lint/suspicious/noExplicitAny: raw JSON answers, read field by field in assertions
type Json = any;

/**
 * `engine serve`'s OpenAI endpoint driven by the client sandgym uses for vLLM (HttpCompletionBackend) and
 * by the token sampler: the same samples as Tinker's asample, token ids and logprobs exact.
 */
test('/v1/completions samples the saved weights as asample does, for the vLLM client and the token sampler', async (t) => {
  const { server } = await startServer(t, { apiKey: 'sk-local' });
  const post = async (endpoint: string, body: unknown) => {
    const res = await fetch(`${server.url}/api/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-local' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, Json>;
  };
  const retrieve = async (requestId: string) => {
    for (;;) {
      const answer = await post('retrieve_future', { request_id: requestId });
      if (answer.type !== 'try_again') return answer;
    }
  };
  const result = async (endpoint: string, body: unknown) => retrieve((await post(endpoint, body)).request_id);
  const session = await post('create_session', { tags: [], user_metadata: {}, sdk_version: 'test' });
  const created = await post('create_model', {
    session_id: session.session_id,
    base_model: 'reference-tiny',
    lora_config: { rank: 8 },
  });
  assert.equal((await retrieve(created.request_id)).model_id, created.model_id);
  const saved = await result('save_weights_for_sampler', {
    model_id: created.model_id,
    seq_id: 1,
    path: 's0',
  });
  const modelPath = saved.path as string;
  assert.match(modelPath, /^tinker:\/\/.+\/sampler_weights\/s0$/);

  const listed = await fetch(`${server.url}/v1/models`, { headers: { authorization: 'Bearer sk-local' } });
  assert.deepEqual(
    ((await listed.json()) as { data: { id: string }[] }).data.map((m) => m.id),
    [modelPath],
    'GET /v1/models lists the sampler paths, as sandgym run checks at start',
  );
  const prompt = [104, 105, 33];
  const viaTinker = await result('asample', {
    model_path: modelPath,
    num_samples: 1,
    prompt: { chunks: [{ type: 'encoded_text', tokens: prompt }] },
    sampling_params: { max_tokens: 8, seed: 5, temperature: 1 },
  });
  const backend = new HttpCompletionBackend({
    baseUrl: `${server.url}/v1`,
    model: modelPath,
    apiKey: 'sk-local',
    timeoutMs: 60_000,
    retry: { maxRetries: 0 },
  });
  const viaOpenAI = await backend.complete(prompt, {
    maxTokens: 8,
    seed: 5,
    temperature: 1,
    stopTokenIds: [],
  });
  assert.deepEqual(viaOpenAI.completionIds, viaTinker.sequences[0].tokens);
  assert.deepEqual(viaOpenAI.logprobs, viaTinker.sequences[0].logprobs);
  assert.equal(viaOpenAI.finishReason, 'length');

  const template = await loadChatTemplate(ASSETS_DIR);
  const sampler = new TokenSampler({ template, backend, maxTokensPerTurn: 16, maxContextTokens: 1024 });
  const turn = await sampler.sample({ messages: [{ role: 'user', content: 'hi' }], seed: 1 });
  assert.deepEqual(
    turn.tokens?.promptIds,
    template.encode(template.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true })),
  );
  assert.equal(turn.tokens?.completionLogprobs.length, turn.tokens?.completionIds.length);

  const refused = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-local' },
    body: JSON.stringify({ model: modelPath, prompt, stream: true }),
  });
  assert.equal(refused.status, 400);
  assert.match(
    ((await refused.json()) as { error: { message: string } }).error.message,
    /stream is not supported/,
  );
  const unauthorized = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: modelPath, prompt }),
  });
  assert.equal(unauthorized.status, 401);
});

test("/v1/chat/completions renders with the served model's template, samples, and answers OpenAI's chat shape", async (t) => {
  const { server } = await startServer(t);
  const modelPath = await tinySamplerWeights(server.url, 'chat');
  const sampler = new OpenAIChatSampler({
    baseUrl: `${server.url}/v1`,
    model: modelPath,
    returnTokenIds: true,
    timeoutMs: 60_000,
    retry: { maxRetries: 0 },
  });
  const tools = [
    { type: 'function' as const, function: { name: 'execute_bash', parameters: { type: 'object' } } },
  ];
  const messages = [
    { role: 'system' as const, content: 'Fix it.' },
    { role: 'user' as const, content: 'Go.' },
  ];
  const result = await sampler.sample({ messages, tools, maxTokens: 12, seed: 2 });
  const template = await loadChatTemplate(ASSETS_DIR);
  assert.deepEqual(
    result.tokens?.promptIds,
    template.encode(template.render(messages, { tools, addGenerationPrompt: true })),
  );
  assert.ok(result.tokens!.completionIds.length >= 1 && result.tokens!.completionIds.length <= 12);
  assert.equal(result.message.role, 'assistant');
  assert.ok(['stop', 'length', 'tool_calls'].includes(result.finishReason));
  const refused = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: modelPath, messages, stream: true }),
  });
  assert.equal(refused.status, 400);
});
