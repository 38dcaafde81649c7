import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTinkerApiError } from './tinker-api-error.ts';
import { backoffDelayMs, TinkerHttp } from './tinker-http.ts';

interface Seen {
  url: string;
  headers: Record<string, string>;
}

function http(replies: (() => Response)[], apiKey?: string) {
  const seen: Seen[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    seen.push({ url, headers: init.headers as Record<string, string> });
    return (replies.length > 1 ? replies.shift()! : replies[0]!)();
  }) as unknown as typeof globalThis.fetch;
  const client = new TinkerHttp({
    baseUrl: 'http://tinker.test/',
    apiKey,
    retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 5 },
    fetch,
  });
  return { client, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers });

test('POSTs go to /api/v1 with the key; retries of 5xx and 429 repeat one idempotency key', async () => {
  const { client, seen } = http(
    [json(503, { detail: 'busy' }), json(429, {}), json(200, { request_id: '1' })],
    'sk-1',
  );
  assert.deepEqual(await client.post('forward_backward', { a: 1 }, { timeoutMs: 1000 }), { request_id: '1' });
  assert.equal(seen.length, 3);
  assert.equal(seen[0]!.url, 'http://tinker.test/api/v1/forward_backward');
  assert.equal(seen[0]!.headers['x-api-key'], 'sk-1');
  const keys = new Set(seen.map((s) => s.headers['x-idempotency-key']));
  assert.equal(keys.size, 1);
  assert.match([...keys][0]!, /^[0-9a-f-]{36}$/);
  const next = http([json(200, {})]);
  await next.client.post('optim_step', {}, { timeoutMs: 1000 });
  assert.equal(next.seen[0]!.headers['x-api-key'], undefined);
});

test('a client error is not retried and says what the server said', async () => {
  const { client, seen } = http([
    json(400, { detail: 'forward_backward: malformed request: seq_id: expected number' }),
  ]);
  await assert.rejects(client.post('forward_backward', {}, { timeoutMs: 1000 }), (e) => {
    assert.ok(isTinkerApiError(e) && e.status === 400 && !e.isRetryable);
    assert.equal(
      e.message,
      'POST forward_backward: HTTP 400: forward_backward: malformed request: seq_id: expected number',
    );
    return true;
  });
  assert.equal(seen.length, 1);
  const conflict = http([json(409, { detail: 'seq_id 3 was already used' })]);
  await assert.rejects(conflict.client.post('optim_step', {}, { timeoutMs: 1000 }), /HTTP 409: seq_id 3/);
  assert.equal(conflict.seen.length, 1);
});

test('giving up says how many attempts were made', async () => {
  const { client, seen } = http([json(502, 'bad gateway')]);
  await assert.rejects(
    client.get('healthz', { timeoutMs: 1000 }),
    /HTTP 502: bad gateway.*\(gave up after 4 attempts\)$/,
  );
  assert.equal(seen.length, 4);
});

test('402 (out of credit) pauses without using up retries, and fails once the pause has run out', async () => {
  let seen = 0;
  const client = new TinkerHttp({
    baseUrl: 'http://tinker.test/',
    retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 5 },
    billingPauseMs: 0,
    fetch: (async () => {
      seen++;
      return json(402, { detail: 'insufficient credit' })();
    }) as unknown as typeof fetch,
  });
  await assert.rejects(client.get('healthz', { timeoutMs: 1000 }), (e) => {
    assert.ok(
      e instanceof Error &&
        /HTTP 402: insufficient credit; the account behind the API key is out of credit/.test(e.message),
    );
    return true;
  });
  assert.equal(seen, 1);
});

test('an attempt past its deadline is a timeout that names the option to raise', async () => {
  const fetch = ((_url: string, init: RequestInit) =>
    new Promise((_, reject) =>
      init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
    )) as unknown as typeof globalThis.fetch;
  const client = new TinkerHttp({
    baseUrl: 'http://tinker.test',
    retry: { maxRetries: 0, initialDelayMs: 1, maxDelayMs: 1 },
    fetch,
  });
  // Deadline timers do not hold the process open (a real socket would): this does.
  const keepAlive = setTimeout(() => {}, 5_000);
  await assert.rejects(client.post('create_model', {}, { timeoutMs: 10 }), (e) => {
    assert.ok(isTinkerApiError(e) && e.kind === 'timeout' && e.isRetryable);
    assert.match(
      e.message,
      /no complete answer from http:\/\/tinker\.test within 10 ms; .*raise requestTimeoutMs/,
    );
    return true;
  });
  clearTimeout(keepAlive);
});

test('a 2xx that is not JSON is a malformed answer', async () => {
  const { client } = http([() => new Response('<html>proxy</html>', { status: 200 })]);
  await assert.rejects(
    client.post('asample', {}, { timeoutMs: 1000 }),
    (e) =>
      isTinkerApiError(e) &&
      e.kind === 'malformed-response' &&
      /not JSON: <html>proxy<\/html>/.test(e.message),
  );
});

test('backoff doubles from the initial delay, jittered in its upper half, capped, and honours Retry-After', () => {
  const policy = { maxRetries: 5, initialDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    backoffDelayMs(0, policy, undefined, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(0, policy, undefined, () => 1),
    100,
  );
  assert.equal(
    backoffDelayMs(2, policy, undefined, () => 1),
    400,
  );
  assert.equal(
    backoffDelayMs(6, policy, undefined, () => 1),
    1000,
  );
  assert.equal(
    backoffDelayMs(0, policy, 700, () => 0),
    700,
  );
  assert.equal(
    backoffDelayMs(0, policy, 5000, () => 0),
    1000,
  );
});

test('the Retry-After of a 429 is kept on the error, for the backoff to honour', async () => {
  const { client, seen } = http([json(429, { detail: 'slow down' }, { 'retry-after': '2' })]);
  await assert.rejects(client.post('asample', {}, { timeoutMs: 1000 }), (e) => {
    assert.ok(isTinkerApiError(e) && e.status === 429 && e.isRetryable);
    assert.equal(e.retryAfterMs, 2000);
    return true;
  });
  assert.equal(seen.length, 4);
});
