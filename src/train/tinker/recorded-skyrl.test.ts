import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sequenceDatum } from '../reference/test-support.ts';
import { fixture } from './test-support.ts';
import { isTinkerApiError } from './tinker-api-error.ts';
import { TinkerEngine } from './tinker-engine.ts';

interface Exchange {
  method: string;
  path: string;
  request: Record<string, unknown> | null;
  status: number;
  response: unknown;
}

/**
 * Plays SkyRL's recorded answers back (fixtures/skyrl-a9564572-recorded.json, recorded from its real
 * API server and engine loop): each request is matched to the first unused recorded one of the same
 * method and path (for retrieve_future, of the same request_id, since pipelined calls may interleave
 * differently), must carry the same fields, and gets the answer SkyRL gave.
 */
function replay(exchanges: Exchange[]) {
  const used = new Set<number>();
  const tagless = (p: string) => p.replace(/-[0-9a-f]{6}$/, '-*');
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const path = new URL(String(url)).pathname;
    const method = init?.method ?? 'GET';
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null;
    const index = exchanges.findIndex(
      (e, i) =>
        !used.has(i) &&
        e.method === method &&
        tagless(e.path) === tagless(path) &&
        (!path.endsWith('/retrieve_future') || e.request?.request_id === body?.request_id),
    );
    assert.ok(index >= 0, `${method} ${path} ${JSON.stringify(body)}: not in the recording`);
    used.add(index);
    const recorded = exchanges[index]!;
    assert.deepEqual(
      Object.keys(body ?? {}).sort(),
      Object.keys(recorded.request ?? {}).sort(),
      `${path}: fields`,
    );
    return recorded.response === null
      ? new Response(null, { status: recorded.status })
      : Response.json(recorded.response, { status: recorded.status });
  }) as typeof fetch;
  return { fetch: fetchFn, done: () => used.size === exchanges.length };
}

test('a session with SkyRL’s real server, replayed: connect, train, distinct saves, delete, sample, load', async () => {
  const { flow } = fixture('skyrl-a9564572-recorded.json') as { flow: Exchange[] };
  const server = replay(flow);
  const warnings: string[] = [];
  const engine = await TinkerEngine.create({
    baseUrl: 'http://skyrl.test',
    apiKey: 'tml-dummy',
    tokenizer: 'sandgym/reference-byte',
    maxContextTokens: 1024,
    heartbeatIntervalMs: 3_600_000,
    fetch: server.fetch,
    onWarning: (w) => warnings.push(w),
  });
  assert.equal(engine.getInfo().max_seq_len, 1024);
  const tok = engine.getTokenizer();
  const data = ['one: 1<|im_end|>', 'two: 22<|im_end|>'].map((s) => sequenceDatum(tok.encode(s)));
  const pass = await engine.forwardBackward(data, 'cross_entropy');
  assert.equal(pass.loss_fn_outputs.length, 2);
  assert.deepEqual((await engine.optimStep({ learning_rate: 1e-3, grad_clip_norm: 1 })).metrics, { step: 1 });
  assert.equal(warnings.filter((w) => /ignores grad_clip_norm/.test(w)).length, 1);
  const dir = await mkdtemp(join(tmpdir(), 'sg-replay-'));
  await engine.saveState(join(dir, 'a'), { name: 'rl-000001' });
  await engine.saveState(join(dir, 'b'), { name: 'rl-000001' });
  await engine.deleteState(join(dir, 'a'));
  const sampled = await engine.sample(tok.encode('hi'), { max_tokens: 8, temperature: 1, seed: 1 }, 2);
  assert.equal(sampled.sequences.length, 2);
  assert.ok(
    sampled.sequences.every(
      (s) => s.stop_reason === 'stop' && s.tokens.at(-1) === tok.specialTokens['<|im_end|>'],
    ),
  );
  // The KL reference: SkyRL answers the sampler save with its short tinker://<model>/<name> form.
  await engine.saveState(join(dir, 'ref'), { name: 'reference-policy', forSampling: true });
  const reference = await engine.samplingPolicy(join(dir, 'ref'));
  const scored = await reference!.forward([data[0]!], 'cross_entropy');
  assert.equal(
    scored.loss_fn_outputs[0]!.logprobs.data.length,
    data[0]!.loss_fn_inputs.target_tokens.data.length,
  );
  await engine.loadState(join(dir, 'b'), { optimizer: true });
  assert.deepEqual((await engine.optimStep({ learning_rate: 1e-3 })).metrics, { step: 2 });
  await engine.close();
  assert.ok(server.done(), 'every recorded exchange was asked for');
});

test('SkyRL’s recorded refusals reach the caller as clear errors', async () => {
  const { errors } = fixture('skyrl-a9564572-recorded.json') as { errors: Exchange[] };
  const byStatus = (status: number) => errors.find((e) => e.status === status)!;
  const { TinkerHttp } = await import('./tinker-http.ts');
  for (const status of [409, 422, 404]) {
    const recorded = byStatus(status);
    const http = new TinkerHttp({
      baseUrl: 'http://skyrl.test',
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 1 },
      fetch: (async () => Response.json(recorded.response, { status })) as unknown as typeof fetch,
    });
    await assert.rejects(
      http.post(recorded.path.replace('/api/v1/', ''), recorded.request, { timeoutMs: 1_000 }),
      (e) => isTinkerApiError(e) && e.status === status && !e.isRetryable && (e.detail ?? '').length > 0,
    );
  }
});
