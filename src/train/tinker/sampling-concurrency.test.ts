import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sequenceDatum } from '../reference/test-support.ts';
import { startServer } from './test-support.ts';
import { TinkerEngine } from './tinker-engine.ts';

/**
 * A fetch that counts sampling requests (asample and its retrieve_future polls) in flight, and holds
 * each asample POST a while so that concurrent ones overlap however loaded the machine is.
 */
function countingFetch() {
  const counts = { inFlight: 0, max: 0, posted: 0 };
  const counted = (async (url: string | URL | Request, init?: RequestInit) => {
    const path = String(url);
    if (!/\/(asample|retrieve_future)$/.test(path)) return fetch(url, init);
    counts.inFlight++;
    counts.max = Math.max(counts.max, counts.inFlight);
    try {
      if (path.endsWith('/asample')) {
        counts.posted++;
        await sleep(40);
      }
      return await fetch(url, init);
    } finally {
      counts.inFlight--;
    }
  }) as typeof fetch;
  return { counts, fetch: counted };
}

test('sampling requests run concurrently up to maxConcurrentSamples, samples and prompt-logprob scoring alike', async (t) => {
  const { client, dir } = await startServer(t, { seed: 3 });
  const { counts, fetch } = countingFetch();
  const engine = await TinkerEngine.create({ ...client, fetch, seed: 3, maxConcurrentSamples: 3 });
  t.after(() => engine.close());
  const tok = engine.getTokenizer();
  const prompt = tok.encode('two: ');
  const params = { max_tokens: 4, seed: 1 };
  // The first sample saves the weights for the sampler (a training request); only samples follow.
  await engine.sample(prompt, params, 1);
  counts.max = 0;
  const results = await Promise.all(Array.from({ length: 12 }, () => engine.sample(prompt, params, 2)));
  assert.equal(results.length, 12);
  assert.ok(results.every((r) => r.sequences.length === 2));
  assert.equal(counts.max, 3, 'at most 3 sampling requests in flight, and 3 reached');

  // The KL reference scores every datum as a prompt-logprob sample: the same limit holds.
  const saved = join(dir, 'run', 'reference-policy');
  await engine.saveState(saved, { name: 'reference-policy', forSampling: true });
  const reference = await engine.samplingPolicy(saved);
  assert.ok(reference);
  const data = Array.from({ length: 10 }, (_, i) => sequenceDatum(tok.encode(`x: ${i}<|im_end|>`)));
  counts.max = 0;
  const before = counts.posted;
  const scored = await reference.forward(data, 'cross_entropy');
  assert.equal(scored.loss_fn_outputs.length, 10);
  assert.equal(counts.posted - before, 10);
  assert.equal(counts.max, 3);
});

test('by default (400, as the Tinker SDK) a dozen samples are all in flight at once', async (t) => {
  const { client } = await startServer(t, { seed: 3 });
  const { counts, fetch } = countingFetch();
  const engine = await TinkerEngine.create({ ...client, fetch, seed: 3 });
  t.after(() => engine.close());
  const prompt = engine.getTokenizer().encode('two: ');
  await engine.sample(prompt, { max_tokens: 4 }, 1);
  counts.max = 0;
  await Promise.all(Array.from({ length: 12 }, () => engine.sample(prompt, { max_tokens: 4 }, 1)));
  assert.equal(counts.max, 12);
});

test('maxConcurrentSamples must be a positive integer', async () => {
  await assert.rejects(
    TinkerEngine.create({ baseUrl: 'http://127.0.0.1:9', maxConcurrentSamples: 0 }),
    /maxConcurrentSamples must be a positive integer, got 0/,
  );
});
