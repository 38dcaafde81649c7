import { encodeJsonEnvelope } from '../../sandbox/e2b/index.ts';

/** Raw requests to a test server, for checking exactly what it answers (statuses, bodies, headers). */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export async function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    ...(init.headers && { headers: init.headers }),
    ...(init.body !== undefined && { body: init.body }),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    body,
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}

/** A sandbox as a test sees it: its id and envd access token (from the create answer). */
export interface CreatedForTest {
  sandboxID: string;
  envdAccessToken: string;
}

export async function createSandbox(
  url: string,
  key: string,
  body: Record<string, unknown> = {},
): Promise<CreatedForTest> {
  const r = await rawRequest(`${url}/sandboxes`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ templateID: 'sandgym/base', timeout: 300, ...body }),
  });
  if (r.status !== 201) throw new Error(`create: HTTP ${r.status}: ${r.body}`);
  return r.json<CreatedForTest>();
}

/** Headers that route a request to a sandbox's envd. */
export function envdHeaders(s: CreatedForTest, token = s.envdAccessToken): Record<string, string> {
  return { 'E2b-Sandbox-Id': s.sandboxID, 'E2b-Sandbox-Port': '49983', 'X-Access-Token': token };
}

/** Runs a shell command through process.Process/Start; the raw answer and its decoded stdout. */
export async function runInSandbox(url: string, s: CreatedForTest, command: string): Promise<string> {
  const r = await rawRequest(`${url}/process.Process/Start`, {
    method: 'POST',
    headers: { ...envdHeaders(s), 'Content-Type': 'application/connect+json' },
    body: encodeJsonEnvelope({ process: { cmd: '/bin/sh', args: ['-c', command] }, stdin: false }),
  });
  if (r.status !== 200) throw new Error(`Start: HTTP ${r.status}: ${r.body}`);
  let out = '';
  for (let at = 0; at + 5 <= r.body.length; ) {
    const length = r.body.readUInt32BE(at + 1);
    const message = JSON.parse(r.body.subarray(at + 5, at + 5 + length).toString()) as {
      event?: { data?: { stdout?: string } };
    };
    if (message.event?.data?.stdout) out += Buffer.from(message.event.data.stdout, 'base64').toString();
    at += 5 + length;
  }
  return out;
}
