import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { sequenceDatum } from '../reference/test-support.ts';
import { startServer } from '../tinker/test-support.ts';
import type { EngineServer } from './engine-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: raw JSON answers, read field by field in assertions
type Json = any;

interface Answer {
  status: number;
  body: Record<string, Json>;
}

/** The Tinker API as raw HTTP, as any client sends it. */
function api(server: EngineServer) {
  const call = async (
    method: string,
    endpoint: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${server.url}/api/v1/${endpoint}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, Json> } satisfies Answer;
  };
  const post = (endpoint: string, body?: unknown, headers?: Record<string, string>) =>
    call('POST', endpoint, body, headers);
  /** POSTs, expects 200, and waits for the future's result. */
  const result = async (endpoint: string, body: unknown) => {
    const submitted = await post(endpoint, body);
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    return retrieve(submitted.body.request_id);
  };
  const retrieve = async (requestId: string): Promise<Answer> => {
    for (;;) {
      const answer = await post('retrieve_future', { request_id: requestId });
      if (answer.status !== 408) return answer;
    }
  };
  return { get: (endpoint: string) => call('GET', endpoint), post, result, retrieve };
}

async function model(t: TestContext, options = {}) {
  const { server, dir } = await startServer(t, options);
  const http = api(server);
  const session = await http.post('create_session', { tags: [], user_metadata: {}, sdk_version: 'test' });
  const created = await http.post('create_model', {
    session_id: session.body.session_id,
    base_model: 'reference-tiny',
    lora_config: { rank: 8 },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.equal((await http.retrieve(created.body.request_id)).body.model_id, created.body.model_id);
  return {
    server,
    dir,
    http,
    sessionId: session.body.session_id as string,
    modelId: created.body.model_id as string,
  };
}

const fb = (modelId: string, seqId: number, tokens = [104, 105, 33, 258]) => ({
  model_id: modelId,
  seq_id: seqId,
  forward_backward_input: { data: [sequenceDatum(tokens)], loss_fn: 'cross_entropy' },
});

test('healthz, capabilities and get_info describe the model; a LoRA rank is recorded, not applied', async (t) => {
  const { http, modelId } = await model(t);
  assert.deepEqual((await http.get('healthz')).body, { status: 'ok' });
  const caps = (await http.get('get_server_capabilities')).body;
  assert.equal(caps.supported_models[0].model_name, 'reference-tiny');
  assert.equal(caps.supported_models[0].max_context_length, 1024);
  assert.match(caps.supported_models[0].lora, /trains all weights/);
  const info = (await http.post('get_info', { model_id: modelId })).body;
  assert.equal(info.lora_rank, 8);
  assert.equal(info.model_data.tokenizer_id, 'sandgym/reference-byte');
  assert.equal(info.model_data.vocab_size, 260);
  assert.match(info.model_data.arch, /full fine-tuning/);
});

test('malformed or impossible requests are answered 4xx with what is wrong', async (t) => {
  const { http, modelId, sessionId } = await model(t);
  const expect = async (answer: Promise<Answer>, status: number, detail: RegExp) => {
    const { status: got, body } = await answer;
    assert.equal(got, status, JSON.stringify(body));
    assert.match(body.detail, detail);
  };
  await expect(http.post('create_session', '{"tags": ['), 400, /not valid JSON/);
  await expect(
    http.post('create_model', { session_id: sessionId }),
    400,
    /create_model: malformed request: base_model: /,
  );
  await expect(
    http.post('create_model', { session_id: sessionId, base_model: 'Qwen/Qwen3-8B' }),
    400,
    /this server serves "reference-tiny"/,
  );
  await expect(
    http.post('optim_step', { model_id: 'model_nope', adam_params: {} }),
    404,
    /model model_nope is not loaded/,
  );
  await expect(
    http.post('forward_backward', fb(modelId, 1, [104, 300, 33])),
    400,
    /token 300 is outside the vocabulary \[0, 260\)/,
  );
  const config = fb(modelId, 2);
  Object.assign(config.forward_backward_input, { loss_fn_config: { clip_low_threshold: 0.8 } });
  await expect(
    http.post('forward_backward', config),
    400,
    /keys clip_low_threshold are not accepted for loss_fn "cross_entropy"/,
  );
  const prompt = { chunks: [{ type: 'encoded_text', tokens: [104] }] };
  await expect(
    http.post('asample', { prompt, sampling_params: { max_tokens: 2 }, base_model: 'reference-tiny' }),
    400,
    /samples saved weights only/,
  );
  await expect(
    http.post('asample', { prompt, sampling_params: { max_tokens: 2 }, sampling_session_id: 'x' }),
    404,
    /sampling session x is unknown/,
  );
  await expect(
    http.post('session_heartbeat', { session_id: 'session_gone' }),
    404,
    /session session_gone is unknown/,
  );
  await expect(http.post('retrieve_future', { request_id: '999' }), 404, /future 999 is unknown/);
  await expect(http.post('no_such_thing', {}), 404, /unknown endpoint POST \/api\/v1\/no_such_thing/);
  await expect(http.get('optim_step'), 405, /optim_step does not take GET/);
  // The rejected seq_ids 1 and 2 gave their turns away: seq_id 3 runs without waiting for them.
  assert.equal((await http.result('forward_backward', fb(modelId, 3))).status, 200);
});

test('a model’s requests run in seq_id order; a retry gets the same future, a reused seq_id a 409', async (t) => {
  const { http, modelId } = await model(t);
  const optim = await http.post('optim_step', {
    model_id: modelId,
    seq_id: 2,
    adam_params: { learning_rate: 0.01 },
  });
  const pass = await http.post('forward_backward', fb(modelId, 1));
  const step = await http.retrieve(optim.body.request_id);
  assert.ok(
    step.body.metrics.grad_norm > 0,
    'optim_step ran after the forward_backward it follows in seq_id',
  );
  assert.equal(step.body.metrics.step, 1);
  assert.equal((await http.post('forward_backward', fb(modelId, 1))).body.request_id, pass.body.request_id);
  const reused = await http.post('forward_backward', fb(modelId, 1, [1, 2, 3]));
  assert.equal(reused.status, 409);
  assert.match(reused.body.detail, /seq_id 1 was already used/);
  const key = { 'x-idempotency-key': 'retry-1' };
  const first = await http.post('create_session', { tags: [], sdk_version: 't' }, key);
  assert.equal(
    (await http.post('create_session', { tags: [], sdk_version: 't' }, key)).body.session_id,
    first.body.session_id,
  );
});

test('checkpoints are tinker:// paths under the weights dir; weights load only into a fresh model', async (t) => {
  const { http, modelId, sessionId, dir } = await model(t);
  const saved = await http.result('save_weights', { model_id: modelId, seq_id: 1, path: 'ck' });
  assert.deepEqual(saved.body, { type: 'save_weights', path: `tinker://${modelId}/weights/ck` });
  assert.ok(existsSync(join(dir, 'weights', modelId, 'weights', 'ck', 'manifest.json')));
  const again = await http.post('save_weights', { model_id: modelId, seq_id: 2, path: 'ck' });
  assert.equal(again.status, 409);
  const late = await http.post('load_weights', {
    model_id: modelId,
    seq_id: 3,
    path: saved.body.path,
    optimizer: true,
  });
  assert.match(late.body.detail, /weights load only as a model's first request/);
  const fresh = await http.post('create_model', {
    session_id: sessionId,
    base_model: 'reference-tiny',
    lora_config: { rank: 8 },
  });
  const freshId = fresh.body.model_id;
  const missing = await http.post('load_weights', {
    model_id: freshId,
    seq_id: 1,
    path: `tinker://${modelId}/weights/nope`,
    optimizer: true,
  });
  assert.equal(missing.status, 404);
  const wrongKind = await http.post('load_weights', {
    model_id: freshId,
    seq_id: 2,
    path: `tinker://${modelId}/sampler_weights/ck`,
    optimizer: true,
  });
  assert.match(wrongKind.body.detail, /holds sampler weights/);
  // Refused requests count for nothing but their seq_ids: the load is still the model's first request.
  const loaded = await http.result('load_weights', {
    model_id: freshId,
    seq_id: 3,
    path: saved.body.path,
    optimizer: true,
  });
  assert.equal(loaded.body.type, 'load_weights');
  const unloaded = await http.result('unload_model', { model_id: freshId });
  assert.deepEqual(unloaded.body, { type: 'unload_model', model_id: freshId });
  assert.equal((await http.post('get_info', { model_id: freshId })).status, 404);
});

test('a sampling session keeps sampling the weights it was opened on after the model trains on', async (t) => {
  const { http, modelId, sessionId } = await model(t);
  const opened = await http.result('save_weights_for_sampler', {
    model_id: modelId,
    seq_id: 1,
    sampling_session_seq_id: 0,
  });
  const session = opened.body.sampling_session_id;
  assert.equal(opened.body.path, null);
  const sample = async (source: Record<string, unknown>) =>
    (
      await http.result('asample', {
        ...source,
        num_samples: 2,
        prompt: { chunks: [{ type: 'encoded_text', tokens: [104, 105] }] },
        sampling_params: { max_tokens: 6, seed: 4, stop: '<|im_end|>' },
      })
    ).body;
  const before = await sample({ sampling_session_id: session, seq_id: 0 });
  assert.equal(before.sequences.length, 2);
  await http.result('forward_backward', fb(modelId, 2));
  await http.result('optim_step', { model_id: modelId, seq_id: 3, adam_params: { learning_rate: 0.05 } });
  assert.deepEqual(await sample({ sampling_session_id: session, seq_id: 1 }), before);
  const named = await http.result('save_weights_for_sampler', {
    model_id: modelId,
    seq_id: 4,
    path: 'after',
  });
  assert.equal(named.body.path, `tinker://${modelId}/sampler_weights/after`);
  const after = await sample({ model_path: named.body.path });
  assert.notDeepEqual(after, before);
  const reopened = await http.post('create_sampling_session', {
    session_id: sessionId,
    sampling_session_seq_id: 1,
    model_path: named.body.path,
  });
  assert.deepEqual(
    await sample({ sampling_session_id: reopened.body.sampling_session_id, seq_id: 0 }),
    after,
  );
  const absent = await http.result('asample', {
    model_path: `tinker://${modelId}/sampler_weights/never`,
    prompt: { chunks: [{ tokens: [104] }] },
    sampling_params: { max_tokens: 1 },
  });
  assert.equal(absent.body.category, 'user');
  assert.match(absent.body.error, /no sampler weights "never"/);
});
