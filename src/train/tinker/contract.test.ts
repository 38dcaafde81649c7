import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isConfigError } from '../../errors.ts';
import type { Datum } from '../engine.ts';
import { sequenceDatum } from '../reference/test-support.ts';
import { POINTER_FILE, readCheckpointPointer } from './checkpoint-pointer.ts';
import { REFERENCE_TOKENIZER_ID } from './resolve-tokenizer.ts';
import { fixture, startServer } from './test-support.ts';
import { TinkerEngine } from './tinker-engine.ts';

const SKYRL = fixture('skyrl-a9564572.json');
const SDK = fixture('tinker-sdk-d595dc2.json');

/** A fetch that passes through and records each request: method, endpoint (after /api/v1/), body. */
function recording() {
  const sent: { method: string; endpoint: string; body: Record<string, unknown> | undefined }[] = [];
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const path = new URL(String(url)).pathname;
    sent.push({
      method: init?.method ?? 'GET',
      endpoint: path.replace(/^\/api\/v1\//, ''),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    });
    return fetch(url, init);
  }) as typeof fetch;
  return { sent, fetch: fetchFn };
}

/** Every field the model requires is there, and nothing it would ignore is sent. */
/** Fields the SDK sends that SkyRL's models do not read (pydantic ignores them): sent as the SDK does. */
const SDK_ONLY: Record<string, string[]> = {
  create_model: ['model_seq_id', 'user_metadata'],
  retrieve_future: ['allow_metadata_only'],
  // SkyRL's SaveWeightsRequest has no seq_id (it queues saves in arrival order); the SDK sends one.
  save_weights: ['seq_id'],
};

function conforms(
  endpoint: string,
  body: Record<string, unknown>,
  spec: { requires?: string[]; fields?: string[] },
) {
  for (const f of spec.requires ?? []) assert.ok(f in body, `${endpoint}: ${f} is required`);
  if (spec.fields) {
    const known = [...spec.fields, ...(SDK_ONLY[endpoint] ?? [])];
    const extra = Object.keys(body).filter((k) => !known.includes(k));
    assert.deepEqual(extra, [], `${endpoint}: fields the server ignores`);
  }
}

function batch(engine: TinkerEngine): Datum[] {
  const tok = engine.getTokenizer();
  return ['one: 1<|im_end|>', 'two: 22<|im_end|>'].map((s) => sequenceDatum(tok.encode(s)));
}

test('against SkyRL’s behaviour: tokenizer and context from the settings, bodies as its models define them, distinct checkpoints, deletion, ignored settings said once', async (t) => {
  const { client, dir } = await startServer(t, { compat: 'skyrl', seed: 3 });
  const wire = recording();
  const warnings: string[] = [];
  const options = { ...client, fetch: wire.fetch, onWarning: (w: string) => warnings.push(w) };

  // SkyRL names no tokenizer and no context: without the settings, a clear error at connect.
  await assert.rejects(
    TinkerEngine.create(options),
    (e) => isConfigError(e) && /set engine\.tinker\.tokenizer/.test(e.message),
  );
  await assert.rejects(
    TinkerEngine.create({ ...options, tokenizer: REFERENCE_TOKENIZER_ID }),
    (e) => isConfigError(e) && /set engine\.tinker\.max_context_tokens/.test(e.message),
  );
  const engine = await TinkerEngine.create({
    ...options,
    tokenizer: REFERENCE_TOKENIZER_ID,
    maxContextTokens: 512,
  });
  t.after(() => engine.close());
  assert.equal(engine.getInfo().max_seq_len, 512);

  await engine.forwardBackward(batch(engine), 'cross_entropy');
  await engine.optimStep({ learning_rate: 1e-3, grad_clip_norm: 1 });
  await engine.optimStep({ learning_rate: 1e-3, grad_clip_norm: 1 });
  assert.equal(warnings.filter((w) => /ignores grad_clip_norm/.test(w)).length, 1, warnings.join('\n'));

  // The same step saved twice (a resumed run does that): SkyRL refuses a name it has, so each save
  // gets its own, and each pointer names the exact path saved.
  const first = join(dir, 'run', 'a', 'engine');
  const again = join(dir, 'run', 'b', 'engine');
  await engine.saveState(first, { name: 'rl-000001' });
  await engine.saveState(again, { name: 'rl-000001' });
  const [p1, p2] = [await readCheckpointPointer(first), await readCheckpointPointer(again)];
  assert.match(p1.tinker_path, /^tinker:\/\/model_[0-9a-f]+\/weights\/rl-000001-[0-9a-f]{6}$/);
  assert.notEqual(p1.tinker_path, p2.tinker_path);
  assert.ok(existsSync(join(first, POINTER_FILE)));

  // Pruned checkpoints are deleted on the server (DELETE training_runs/…, 204).
  const serverDir = (p: string) => join(dir, 'weights', ...p.slice('tinker://'.length).split('/'));
  assert.ok(existsSync(serverDir(p1.tinker_path)));
  await engine.deleteState(first);
  assert.ok(!existsSync(serverDir(p1.tinker_path)));
  assert.ok(existsSync(serverDir(p2.tinker_path)));

  const sampled = await engine.sample(
    engine.getTokenizer().encode('one:'),
    { max_tokens: 4, temperature: 1 },
    2,
  );
  assert.equal(sampled.sequences.length, 2);

  const req = SKYRL.requests;
  const posts = wire.sent.filter((s) => s.method === 'POST');
  const bodiesOf = (endpoint: string) => posts.filter((s) => s.endpoint === endpoint).map((s) => s.body!);
  assert.equal(wire.sent[0]!.endpoint, 'client/config', 'the SDK’s handshake comes first');
  conforms('client/config', bodiesOf('client/config')[0]!, SDK.requests['client/config']);
  for (const name of [
    'create_session',
    'create_model',
    'get_info',
    'forward_backward',
    'optim_step',
    'save_weights',
    'save_weights_for_sampler',
    'asample',
    'retrieve_future',
  ]) {
    const bodies = bodiesOf(name);
    assert.ok(bodies.length > 0, `${name} was sent`);
    for (const body of bodies) conforms(name, body, req[name]);
  }
  for (const body of bodiesOf('create_model'))
    conforms('lora_config', body.lora_config as Record<string, unknown>, req.create_model.lora_config);
  for (const body of bodiesOf('asample'))
    conforms('sampling_params', body.sampling_params as Record<string, unknown>, req.asample.sampling_params);
  for (const body of bodiesOf('forward_backward')) {
    const input = body.forward_backward_input as {
      loss_fn: string;
      loss_fn_config?: Record<string, number>;
      data: { loss_fn_inputs: Record<string, unknown> }[];
    };
    assert.ok(req.forward_backward.loss_fn.includes(input.loss_fn));
    const allowed: string[] = req.forward_backward.loss_fn_config_keys[input.loss_fn];
    for (const k of Object.keys(input.loss_fn_config ?? {}))
      assert.ok(allowed.includes(k), `${input.loss_fn} takes no ${k}`);
    for (const d of input.data)
      conforms('loss_fn_inputs', d.loss_fn_inputs, req.forward_backward.datum_loss_fn_inputs);
  }
  for (const body of bodiesOf('save_weights'))
    assert.match(String(body.path), new RegExp(req.save_weights.path_pattern));
  const deleted = wire.sent.filter((s) => s.method === 'DELETE').map((s) => s.endpoint);
  assert.deepEqual(deleted, [
    `training_runs/${p1.tinker_path.slice('tinker://'.length).replace('/weights/', '/checkpoints/weights/')}`,
  ]);
});

test('sandgym engine serve --compat skyrl answers with SkyRL’s shapes and statuses', async (t) => {
  const { server } = await startServer(t, { compat: 'skyrl' });
  const api = (endpoint: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
    fetch(`${server.url}/api/v1/${endpoint}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked against the fixtures field by field
  const json = async (r: Promise<Response>): Promise<any> => (await r).json();
  const shape = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(shape)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]))
        : typeof v;

  assert.deepEqual(
    shape(await json(api('get_server_capabilities'))),
    shape(SKYRL.get_server_capabilities.answer),
  );
  assert.deepEqual(
    await json(api('client/config', { sdk_version: '0.25.0' })),
    SKYRL.requests['client/config'].answer,
  );
  const { session_id } = await json(
    api('create_session', { tags: [], user_metadata: null, sdk_version: 'x' }),
  );
  const created = await json(
    api('create_model', { session_id, base_model: 'reference-tiny', lora_config: { rank: 8 } }),
  );
  const info = await json(api('get_info', { model_id: created.model_id }));
  assert.deepEqual(
    Object.keys(info.model_data).sort(),
    Object.keys(SKYRL.requests.get_info.answer.model_data).sort(),
  );

  const datum = sequenceDatum([1, 2, 3]);
  const refused = await api('forward_backward', {
    model_id: created.model_id,
    seq_id: 1,
    forward_backward_input: {
      data: [datum],
      loss_fn: 'importance_sampling',
      loss_fn_config: { clip_low_threshold: 0.8 },
    },
  });
  assert.equal(refused.status, SKYRL.validation_error.status);
  assert.match((await json(Promise.resolve(refused))).detail[0].msg, /does not accept loss_fn_config keys/);

  const save = async (seq_id: number) =>
    api('save_weights', { model_id: created.model_id, path: 'rl-000001', seq_id });
  const saved = await json(save(2));
  const done = await json(api('retrieve_future', { request_id: saved.request_id }));
  assert.match(done.path, /^tinker:\/\/model_\w+\/weights\/rl-000001$/, JSON.stringify(done));
  const repeated = await save(3);
  assert.equal(repeated.status, SKYRL.requests.save_weights.repeated_name.status);
  assert.match(
    (await json(Promise.resolve(repeated))).detail,
    /^Checkpoint 'rl-000001' already exists for model '/,
  );

  const openapi = await json(fetch(`${server.url}/openapi.json`));
  assert.deepEqual(
    openapi.components.schemas.AdamParams,
    SKYRL.openapi_fragment.components.schemas.AdamParams,
  );

  const gone = await api(
    `training_runs/${created.model_id}/checkpoints/weights/rl-000001`,
    undefined,
    'DELETE',
  );
  assert.equal(gone.status, SKYRL.requests.delete_checkpoint.status);
  const missing = await api(
    `training_runs/${created.model_id}/checkpoints/weights/rl-000001`,
    undefined,
    'DELETE',
  );
  assert.equal(missing.status, SKYRL.requests.delete_checkpoint.missing.status);

  // A failed request: 400 {detail} from retrieve_future, as SkyRL answers it.
  const bad = await json(
    api('forward_backward', {
      model_id: created.model_id,
      forward_backward_input: {
        data: [{ ...datum, loss_fn_inputs: { target_tokens: { data: [1], dtype: 'int64' } } }],
        loss_fn: 'cross_entropy',
      },
    }),
  );
  if (bad.request_id) {
    const failed = await api('retrieve_future', { request_id: bad.request_id });
    assert.equal(failed.status, SKYRL.requests.retrieve_future.failed.status);
    assert.equal(typeof (await json(Promise.resolve(failed))).detail, 'string');
  } else {
    assert.equal(typeof bad.detail, 'string', 'refused at submission instead');
  }
});

test('hosted Tinker’s flags: a server that enables JWT auth gets the key traded for a token, which then goes in X-API-Key', async (t) => {
  const { client } = await startServer(t, {});
  const seen: { endpoint: string; key: string | null }[] = [];
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const endpoint = new URL(String(url)).pathname.replace(/^\/api\/v1\//, '');
    const key = new Headers(init?.headers).get('x-api-key');
    seen.push({ endpoint, key });
    if (endpoint === 'client/config') return Response.json(SDK.requests['client/config'].answer_jwt);
    if (endpoint === 'auth/token') return Response.json(SDK.requests['auth/token'].answer);
    return fetch(url, init);
  }) as typeof fetch;
  const engine = await TinkerEngine.create({ ...client, apiKey: 'tml-key', fetch: fetchFn });
  t.after(() => engine.close());
  assert.deepEqual(seen.slice(0, 2), [
    { endpoint: 'client/config', key: 'tml-key' },
    { endpoint: 'auth/token', key: 'tml-key' },
  ]);
  const jwt = SDK.requests['auth/token'].answer.jwt;
  assert.ok(
    seen
      .slice(2)
      .every((s) => s.key === jwt || s.endpoint === 'openapi.json' || s.endpoint === '/openapi.json'),
  );
});

test('sandgym engine serve answers the SDK’s other calls: telemetry, samplers/<id>, weights_info', async (t) => {
  const { server, client, dir } = await startServer(t, {});
  const engine = await TinkerEngine.create(client);
  t.after(() => engine.close());
  const saved = join(dir, 'run', 'engine');
  await engine.saveState(saved, { name: 'sft-000001' });
  const path = (await readCheckpointPointer(saved)).tinker_path;
  const sampler = await engine.saveWeightsForSampler('policy');
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  const call = async (endpoint: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const r = await fetch(`${server.url}/api/v1/${endpoint}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, json: await r.json() };
  };
  const telemetry = { events: [], platform: 'linux', sdk_version: '0.22.2', session_id: 's' };
  assert.deepEqual((await call('telemetry', telemetry)).json, { status: 'accepted' });
  assert.deepEqual((await call('weights_info', { tinker_path: path })).json, {
    base_model: 'reference-tiny',
    is_lora: true,
    lora_rank: 32,
  });
  assert.equal((await call('weights_info', { tinker_path: `${path}x` })).status, 404);
  const session = await call('create_sampling_session', {
    session_id: (await call('create_session', { tags: [], user_metadata: null, sdk_version: 'x' })).json
      .session_id,
    sampling_session_seq_id: 0,
    model_path: sampler,
  });
  const info = await call(`samplers/${session.json.sampling_session_id}`);
  assert.deepEqual(info.json, {
    sampler_id: session.json.sampling_session_id,
    base_model: 'reference-tiny',
    model_path: sampler,
  });
  assert.equal((await call('samplers/nope')).status, 404);
});

test('a batch over the server’s chunk limit (client/config fwdbwd_max_chunk_len) goes as parallel chunks and trains as one', async (t) => {
  const { client } = await startServer(t, { seed: 5 });
  let passes = 0;
  const chunking = (async (url: string | URL | Request, init?: RequestInit) => {
    const endpoint = new URL(String(url)).pathname.replace(/^\/api\/v1\//, '');
    if (endpoint === 'client/config')
      return Response.json({ pjwt_auth_enabled: false, fwdbwd_max_chunk_len: 2 });
    if (endpoint === 'forward_backward') passes++;
    return fetch(url, init);
  }) as typeof fetch;
  const whole = await TinkerEngine.create({ ...client, seed: 5 });
  t.after(() => whole.close());
  const chunked = await TinkerEngine.create({ ...client, seed: 5, fetch: chunking });
  t.after(() => chunked.close());
  const tok = whole.getTokenizer();
  const data = ['a: 1', 'b: 22', 'c: 333', 'd: 4444', 'e: 5'].map((s) =>
    sequenceDatum(tok.encode(`${s}<|im_end|>`)),
  );
  const [w, c] = [
    await whole.forwardBackward(data, 'cross_entropy'),
    await chunked.forwardBackward(data, 'cross_entropy'),
  ];
  assert.equal(passes, 3);
  assert.deepEqual(c.loss_fn_outputs, w.loss_fn_outputs);
  assert.ok(Math.abs(c.metrics['loss:sum']! - w.metrics['loss:sum']!) < 1e-3);
  await whole.optimStep({ learning_rate: 1e-2 });
  await chunked.optimStep({ learning_rate: 1e-2 });
  const [w2, c2] = [await whole.forward(data, 'cross_entropy'), await chunked.forward(data, 'cross_entropy')];
  for (let i = 0; i < data.length; i++) {
    const [a, b] = [w2.loss_fn_outputs[i]!.logprobs.data, c2.loss_fn_outputs[i]!.logprobs.data];
    assert.ok(
      a.every((v, j) => Math.abs(v - b[j]!) < 1e-4),
      `datum ${i}: the accumulated gradient is the whole batch's`,
    );
  }
});

test('a result the server dropped (410 from retrieve_future) is asked for again by re-sending the request, as the SDK does', async (t) => {
  const { client } = await startServer(t, { seed: 5 });
  const posted: string[] = [];
  let expire = false;
  const expiring = (async (url: string | URL | Request, init?: RequestInit) => {
    const endpoint = new URL(String(url)).pathname.replace(/^\/api\/v1\//, '');
    posted.push(endpoint);
    if (endpoint === 'forward_backward') expire = !posted.slice(0, -1).includes('forward_backward');
    if (endpoint === 'retrieve_future' && expire) {
      expire = false;
      return Response.json({ detail: 'Promise expired' }, { status: 410 });
    }
    return fetch(url, init);
  }) as typeof fetch;
  const engine = await TinkerEngine.create({ ...client, fetch: expiring });
  t.after(() => engine.close());
  const tok = engine.getTokenizer();
  const out = await engine.forwardBackward([sequenceDatum(tok.encode('a: 1<|im_end|>'))], 'cross_entropy');
  assert.equal(out.loss_fn_outputs.length, 1);
  assert.equal(posted.filter((p) => p === 'forward_backward').length, 2);
  // The re-sent request kept its seq_id: the model's next request still runs.
  await engine.optimStep({ learning_rate: 1e-3 });
});

test('deleting: a checkpoint already gone is no error; a server without the route is told about once', async (t) => {
  const { client, dir } = await startServer(t, {});
  const warnings: string[] = [];
  let deletes = 0;
  const routeless = (async (url: string | URL | Request, init?: RequestInit) => {
    if (init?.method === 'DELETE') {
      deletes++;
      return Response.json({ detail: 'Not Found' }, { status: 404 });
    }
    return fetch(url, init);
  }) as typeof fetch;
  const engine = await TinkerEngine.create({ ...client, onWarning: (w) => warnings.push(w) });
  t.after(() => engine.close());
  const a = join(dir, 'run', 'a');
  await engine.saveState(a, { name: 'rl-000001' });
  await engine.deleteState(a);
  await engine.deleteState(a); // SkyRL and sandgym: 404 "Checkpoint not found"
  assert.equal(warnings.length, 0);
  const old = await TinkerEngine.create({ ...client, fetch: routeless, onWarning: (w) => warnings.push(w) });
  t.after(() => old.close());
  await old.deleteState(a);
  await old.deleteState(a);
  assert.equal(deletes, 1);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /offers no checkpoint deletion/);
});

test('the KL reference as the Tinker cookbook scores it: a sampler on saved weights with prompt logprobs, frozen while training goes on', async (t) => {
  const { client, dir } = await startServer(t, { seed: 9 });
  const engine = await TinkerEngine.create({ ...client, seed: 9 });
  t.after(() => engine.close());
  const tok = engine.getTokenizer();
  const data = ['x: 12<|im_end|>', 'y: 345<|im_end|>'].map((s) => sequenceDatum(tok.encode(s)));
  await engine.forwardBackward(data, 'cross_entropy');
  await engine.optimStep({ learning_rate: 1e-2 });
  const saved = join(dir, 'run', 'reference-policy');
  await engine.saveState(saved, { name: 'reference-policy', forSampling: true });
  assert.match(
    (await readCheckpointPointer(saved)).sampler_path ?? '',
    /^tinker:\/\/.+\/sampler_weights\/reference-policy-/,
  );
  const reference = await engine.samplingPolicy(saved);
  assert.ok(reference);
  const close = (a: number[], b: number[]) =>
    a.length === b.length && a.every((v, i) => Math.abs(v - b[i]!) < 1e-4);
  const now = await engine.forward(data, 'cross_entropy');
  const scored = await reference.forward(data, 'cross_entropy');
  for (let i = 0; i < data.length; i++) {
    assert.ok(
      close(scored.loss_fn_outputs[i]!.logprobs.data, now.loss_fn_outputs[i]!.logprobs.data),
      `datum ${i}`,
    );
  }
  // Training moves the policy; the reference stays where it was saved.
  await engine.forwardBackward(data, 'cross_entropy');
  await engine.optimStep({ learning_rate: 1e-2 });
  const moved = await engine.forward(data, 'cross_entropy');
  const again = await reference.forward(data, 'cross_entropy');
  assert.ok(!close(moved.loss_fn_outputs[0]!.logprobs.data, now.loss_fn_outputs[0]!.logprobs.data));
  assert.ok(close(again.loss_fn_outputs[0]!.logprobs.data, scored.loss_fn_outputs[0]!.logprobs.data));
  // A checkpoint without sampler weights has no sampling policy: the caller falls back to a second model.
  const plain = join(dir, 'run', 'plain');
  await engine.saveState(plain, { name: 'plain' });
  assert.equal(await engine.samplingPolicy(plain), undefined);
});

test('saved sampler weights outlive their model: after a server restart on the same weights, the KL reference still scores', async (t) => {
  const { client, dir, server } = await startServer(t, { seed: 9 });
  const engine = await TinkerEngine.create({ ...client, seed: 9 });
  t.after(() => engine.close());
  const tok = engine.getTokenizer();
  const data = ['x: 12<|im_end|>', 'y: 345<|im_end|>'].map((s) => sequenceDatum(tok.encode(s)));
  await engine.forwardBackward(data, 'cross_entropy');
  await engine.optimStep({ learning_rate: 1e-2 });
  const saved = join(dir, 'run', 'reference-policy');
  await engine.saveState(saved, { name: 'reference-policy', forSampling: true });
  const before = await (await engine.samplingPolicy(saved))!.forward(data, 'cross_entropy');
  // The run is killed (no unload) and the server restarts: the model is gone, its files are not.
  await server.close();
  const restarted = await startServer(t, { seed: 9, weightsDir: join(dir, 'weights') });
  const resumed = await TinkerEngine.create({ ...restarted.client, seed: 9 });
  t.after(() => resumed.close());
  const after = await (await resumed.samplingPolicy(saved))!.forward(data, 'cross_entropy');
  assert.deepEqual(after, before);
});
