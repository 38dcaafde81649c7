import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Datum, SampleResponse, TrainingEngine } from '../engine.ts';
import { ASSETS_DIR, ReferenceEngine } from '../reference/index.ts';
import { sequenceDatum } from '../reference/test-support.ts';
import { POINTER_FILE } from './checkpoint-pointer.ts';
import { startServer } from './test-support.ts';
import { isTinkerApiError } from './tinker-api-error.ts';
import { TinkerEngine } from './tinker-engine.ts';

const SEED = 7;
const ADAM = { learning_rate: 1e-2, grad_clip_norm: 1 };

async function localEngine(
  t: { after: (fn: () => Promise<void>) => void },
  seed = SEED,
): Promise<ReferenceEngine> {
  const engine = await ReferenceEngine.create({ model: 'tiny', seed, threads: 1 });
  t.after(() => engine.close());
  return engine;
}

function sftBatch(engine: TrainingEngine): Datum[] {
  const tok = engine.getTokenizer();
  return ['one: 1<|im_end|>', 'two: 22<|im_end|>', 'three: 333<|im_end|>'].map((s) =>
    sequenceDatum(tok.encode(s)),
  );
}

/** A value as it crosses JSON: what a remote engine can return (−0 arrives as 0). */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

async function sftStep(engine: TrainingEngine) {
  const pass = await engine.forwardBackward(sftBatch(engine), 'cross_entropy');
  const step = await engine.optimStep(ADAM);
  return { pass, step };
}

/** A group of sampled completions as RL data: logprobs and advantages on the completion only. */
function rlBatch(prompt: number[], sampled: SampleResponse, advantages_G: number[]): Datum[] {
  return sampled.sequences.map((s, g) => {
    const zeros = prompt.slice(1).map(() => 0);
    return sequenceDatum([...prompt, ...s.tokens], {
      logprobs: [...zeros, ...s.logprobs],
      advantages: [...zeros, ...s.tokens.map(() => advantages_G[g]!)],
    });
  });
}

test('SFT over HTTP lowers the loss, and every number equals the in-process engine’s with the same seed', async (t) => {
  const { client } = await startServer(t, { seed: SEED });
  const remote = await TinkerEngine.create(client);
  t.after(() => remote.close());
  const local = await localEngine(t);
  assert.deepEqual(remote.getInfo(), {
    ...local.getInfo(),
    model_name: 'reference-tiny',
    tokenizer_dir: ASSETS_DIR,
  });
  const losses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [r, l] = [await sftStep(remote), await sftStep(local)];
    assert.deepEqual(r, wire(l), `step ${i + 1}`);
    losses.push(r.pass.metrics['loss:sum']!);
  }
  assert.ok(losses[3]! < losses[0]! * 0.8, `loss ${losses.join(' → ')}`);
  const forward = await remote.forward(sftBatch(remote), 'cross_entropy');
  assert.deepEqual(forward, wire(await local.forward(sftBatch(local), 'cross_entropy')));
  const prompt = remote.getTokenizer().encode('two: ');
  for (const params of [
    { max_tokens: 16, seed: 5 },
    { max_tokens: 16 },
    { max_tokens: 8, temperature: 0.7, top_k: 20 },
  ]) {
    const r = await remote.sample(prompt, params, 3);
    assert.deepEqual(r, await local.sample(prompt, params, 3), JSON.stringify(params));
    assert.equal(r.sequences.length, 3);
    for (const s of r.sequences) assert.equal(s.logprobs.length, s.tokens.length);
  }
});

test('an RL step over HTTP: importance_sampling and ppo on sampled tokens, as in-process', async (t) => {
  const { client } = await startServer(t, { seed: SEED });
  const remote = await TinkerEngine.create(client);
  t.after(() => remote.close());
  const local = await localEngine(t);
  const prompt = remote.getTokenizer().encode('three: ');
  const params = { max_tokens: 12, temperature: 1, seed: 11 };
  const sampled = await remote.sample(prompt, params, 4);
  assert.deepEqual(sampled, await local.sample(prompt, params, 4));
  const batch = rlBatch(prompt, sampled, [1, -1, 0.5, -0.5]);
  for (const [lossFn, config] of [
    ['importance_sampling', undefined],
    ['ppo', { clip_low_threshold: 0.9, clip_high_threshold: 1.1 }],
  ] as const) {
    const r = await remote.forwardBackward(batch, lossFn, config);
    assert.deepEqual(r, wire(await local.forwardBackward(batch, lossFn, config)), lossFn);
    // On-policy, each completion token's loss is −A (ratio 1); prompt tokens (advantage 0) add nothing.
    r.loss_fn_outputs.forEach((out, g) => {
      const adv = batch[g]!.loss_fn_inputs.advantages!.data;
      out.elementwise_loss.data.forEach((loss, i) => {
        assert.ok(Math.abs(loss + adv[i]!) < 1e-3, `${lossFn} datum ${g} token ${i}: ${loss} vs ${-adv[i]!}`);
      });
    });
    assert.equal(r.metrics['clip_fraction:mean'] !== undefined, true);
  }
  const [rs, ls] = [await remote.optimStep(ADAM), await local.optimStep(ADAM)];
  assert.deepEqual(rs, ls);
  assert.ok(rs.metrics.grad_norm! > 0);
  // The weights moved: the next sample comes from the new weights, on both sides alike.
  assert.deepEqual(await remote.sample(prompt, params, 2), await local.sample(prompt, params, 2));
});

test('saveState and loadState round-trip weights, optimizer and step through tinker:// checkpoints', async (t) => {
  const { client, dir } = await startServer(t, { seed: SEED });
  const a = await TinkerEngine.create(client);
  t.after(() => a.close());
  await sftStep(a);
  await sftStep(a);
  const ckpt = join(dir, 'run', 'step-2');
  const savedFrom = a.modelId;
  await a.saveState(ckpt);
  const pointer = JSON.parse(await readFile(join(ckpt, POINTER_FILE), 'utf8'));
  assert.match(pointer.tinker_path, new RegExp(`^tinker://${savedFrom}/weights/step-2-[0-9a-f]{6}$`));
  assert.equal(pointer.base_model, 'reference-tiny');
  const third = await sftStep(a);
  assert.equal(third.step.metrics.step, 3);

  // Loading into a model that has run requests takes a fresh model, as the Tinker API requires.
  const before = a.modelId;
  await a.loadState(ckpt, { optimizer: true });
  assert.notEqual(a.modelId, before);
  assert.deepEqual(await sftStep(a), third);

  // A new client loads the pointer as its model's first request, and goes on identically.
  const b = await TinkerEngine.create(client);
  t.after(() => b.close());
  const fresh = b.modelId;
  await b.loadState(ckpt, { optimizer: true });
  assert.equal(b.modelId, fresh);
  assert.deepEqual(await sftStep(b), third);

  // Without the optimizer, Adam starts afresh: same weights, step 1.
  await b.loadState(pointer.tinker_path, { optimizer: false });
  const restarted = await sftStep(b);
  assert.deepEqual(restarted.pass, third.pass);
  assert.equal(restarted.step.metrics.step, 1);

  const path = await b.saveWeightsForSampler('policy v1');
  assert.equal(path, `tinker://${b.modelId}/sampler_weights/policy_v1`);
  const local = await localEngine(t);
  const savedAs = pointer.tinker_path.slice('tinker://'.length).split('/');
  await local.loadState(join(dir, 'weights', ...savedAs), { optimizer: false });
  await sftStep(local);
  const prompt = b.getTokenizer().encode('one: ');
  assert.deepEqual(
    await b.sample(prompt, { max_tokens: 10, seed: 3 }, 2),
    await local.sample(prompt, { max_tokens: 10, seed: 3 }, 2),
  );
});

test('an operation slower than the server’s long poll is retrieved through 408 answers', async (t) => {
  // Two threads: the engine computes in workers, so the server keeps answering while it works.
  const { client } = await startServer(t, { longPollMs: 20, threads: 2 });
  const queueStates: string[] = [];
  const engine = await TinkerEngine.create({
    ...client,
    onQueueState: (e) => queueStates.push(e.queueState),
  });
  t.after(() => engine.close());
  const long = Array.from({ length: 300 }, (_, i) => 32 + (i % 90));
  const batch = Array.from({ length: 2 }, () => sequenceDatum(long));
  const out = await engine.forwardBackward(batch, 'cross_entropy');
  assert.equal(out.loss_fn_outputs.length, 2);
  assert.ok(Number.isFinite(out.metrics['loss:sum']));
  assert.ok(queueStates.length > 0, 'no 408 was seen');
  assert.ok(queueStates.every((s) => s === 'active'));
});

test('a missing or wrong API key fails with 401 and says which variable to set; the right one works', async (t) => {
  const { client, server } = await startServer(t, { apiKey: 'sk-right' });
  await assert.rejects(TinkerEngine.create(client), (e) => {
    assert.ok(isTinkerApiError(e) && e.status === 401 && !e.isRetryable, String(e));
    assert.match(e.message, /requires an API key; set TINKER_API_KEY/);
    return true;
  });
  await assert.rejects(
    TinkerEngine.create({ ...client, apiKey: 'sk-wrong' }),
    /401.*rejected the API key; set TINKER_API_KEY/,
  );
  const engine = await TinkerEngine.create({ ...client, apiKey: 'sk-right' });
  await engine.close();
  assert.equal((await fetch(`${server.url}/api/v1/healthz`)).status, 200);
});

test('no server at the address: a retryable network error that asks whether the server runs', async (t) => {
  const { server } = await startServer(t);
  const url = server.url;
  await server.close();
  await assert.rejects(
    TinkerEngine.create({ baseUrl: url, retry: { maxRetries: 1, initialDelayMs: 5, maxDelayMs: 5 } }),
    (e) => {
      assert.ok(isTinkerApiError(e) && e.kind === 'network' && e.isRetryable, String(e));
      assert.match(e.message, /cannot reach the Tinker API at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
      assert.match(e.message, /is the server running/);
      return true;
    },
  );
});
