import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RetrieveOptions, retrieveFuture } from './retrieve-future.ts';
import { isTinkerApiError } from './tinker-api-error.ts';
import { TinkerHttp } from './tinker-http.ts';

type Reply = { status: number; body: unknown } | Error;

/** A fetch that plays `replies` in order (repeating the last) and records each request body. */
function scripted(replies: Reply[]) {
  const bodies: unknown[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
    if (reply instanceof Error) throw reply;
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  };
  return { bodies, fetch: fetch as typeof globalThis.fetch };
}

const RETRY = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 };

function retrieve(replies: Reply[], options: Partial<RetrieveOptions> = {}) {
  const { fetch, bodies } = scripted(replies);
  const http = new TinkerHttp({ baseUrl: 'http://tinker.test/', retry: RETRY, fetch });
  const states: string[] = [];
  const result = retrieveFuture(http, '7', 'forward_backward on model_a', {
    deadlineMs: 5_000,
    pollTimeoutMs: 1_000,
    retry: RETRY,
    onQueueState: (e) => states.push(e.queueState),
    ...options,
  });
  return { result, bodies, states };
}

const refused = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });

test('408 and {type: "try_again"} mean ask again; the result comes back as sent', async () => {
  const { result, bodies, states } = retrieve([
    { status: 408, body: { type: 'try_again', request_id: '7', queue_state: 'paused_capacity' } },
    { status: 408, body: { detail: 'Timeout waiting for result' } },
    { status: 200, body: { type: 'try_again', request_id: '7', queue_state: 'active' } },
    { status: 200, body: { metrics: { 'loss:sum': 1.5 } } },
  ]);
  assert.deepEqual(await result, { metrics: { 'loss:sum': 1.5 } });
  assert.deepEqual(states, ['paused_capacity', 'unknown', 'active']);
  assert.deepEqual(bodies[0], { request_id: '7', allow_metadata_only: false });
  assert.equal(bodies.length, 4);
});

test('a failed request: Tinker’s {error, category} and SkyRL’s 400 both name the request and the cause', async () => {
  const user = retrieve([
    { status: 200, body: { error: 'datum 0: token 300 is outside the vocabulary', category: 'user' } },
  ]);
  await assert.rejects(user.result, (e) => {
    assert.ok(isTinkerApiError(e) && e.kind === 'request-failed' && !e.isRetryable);
    assert.match(
      e.message,
      /^forward_backward on model_a failed on the server \(request 7\): datum 0: token 300/,
    );
    return true;
  });
  const server = retrieve([{ status: 200, body: { error: 'out of memory', category: 'server' } }]);
  await assert.rejects(
    server.result,
    (e) => isTinkerApiError(e) && e.isRetryable && /server-side failure/.test(e.message),
  );
  // A 400 may be a proxy's: as the SDK, ask 3 more times before taking it as the request's failure.
  const skyrl = retrieve([{ status: 400, body: { detail: 'Model not found' } }]);
  await assert.rejects(skyrl.result, /failed on the server \(request 7\): Model not found/);
  assert.equal(skyrl.bodies.length, 4);
  const proxy = retrieve([
    { status: 400, body: 'Bad Request' },
    { status: 400, body: 'Bad Request' },
    { status: 200, body: { ok: 1 } },
  ]);
  assert.deepEqual(await proxy.result, { ok: 1 });
});

test('402 (billing) pauses and asks again until the pause runs out', async () => {
  const paid = retrieve([{ status: 402, body: { detail: 'out of credit' } }], { billingPauseMs: 0 });
  await assert.rejects(paid.result, (e) => isTinkerApiError(e) && e.status === 402);
  assert.equal(paid.bodies.length, 1);
});

test('an unknown future is not retried; an expired one says to send the request again', async () => {
  const unknown = retrieve([
    { status: 404, body: { detail: 'future 7 is unknown' } },
    { status: 200, body: {} },
  ]);
  await assert.rejects(unknown.result, (e) => isTinkerApiError(e) && e.status === 404 && !e.isRetryable);
  assert.equal(unknown.bodies.length, 1);
  const expired = retrieve([{ status: 410, body: { detail: 'expired' } }]);
  await assert.rejects(
    expired.result,
    (e) => isTinkerApiError(e) && e.kind === 'expired' && /send the request again/.test(e.message),
  );
});

test('network faults and 5xx are retried with backoff; an answer resets the count', async () => {
  const recovers = retrieve([
    refused(),
    { status: 503, body: {} },
    { status: 408, body: {} },
    refused(),
    refused(),
    { status: 200, body: { ok: 1 } },
  ]);
  assert.deepEqual(await recovers.result, { ok: 1 });
  const gone = retrieve([refused()]);
  await assert.rejects(gone.result, (e) => {
    assert.ok(isTinkerApiError(e) && e.kind === 'network' && e.isRetryable);
    assert.match(
      e.message,
      /^forward_backward on model_a: waiting for the result of request 7: .*ECONNREFUSED.*is the server running.*\(gave up after 3 attempts\)$/,
    );
    return true;
  });
  assert.equal(gone.bodies.length, 3);
});

test('the whole wait has a deadline, which the error names', async () => {
  const { result } = retrieve([{ status: 408, body: {} }], { deadlineMs: 30 });
  await assert.rejects(
    result,
    (e) =>
      isTinkerApiError(e) && e.kind === 'timeout' && /within 30 ms; .*raise futureTimeoutMs/.test(e.message),
  );
});

test('a long poll the client gives up on is simply asked again', async () => {
  let calls = 0;
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    if (++calls === 1) {
      await new Promise((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    }
    return new Response('{"done":true}', { status: 200 });
  }) as typeof globalThis.fetch;
  const http = new TinkerHttp({ baseUrl: 'http://tinker.test', retry: RETRY, fetch });
  // Deadline timers do not hold the process open (a real socket would): this does.
  const keepAlive = setTimeout(() => {}, 5_000);
  const result = await retrieveFuture(http, '7', 'optim_step', {
    deadlineMs: 5_000,
    pollTimeoutMs: 20,
    retry: RETRY,
  });
  clearTimeout(keepAlive);
  assert.deepEqual(result, { done: true });
  assert.equal(calls, 2);
});
