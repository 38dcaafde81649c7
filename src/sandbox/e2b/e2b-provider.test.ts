import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isSandboxError } from '../../errors.ts';
import { currentRunId } from '../owner.ts';
import { LABELS } from '../types.ts';
import { ENVELOPE_END_STREAM, encodeJsonEnvelope } from './connect-envelope.ts';
import { createE2BProvider, type E2BProvider } from './index.ts';

/**
 * The e2b provider against a scripted E2B server: what it sends, and how it copes with streams that a
 * real server would not produce on demand (silent, kept alive, cut).
 */
type Script = (res: http.ServerResponse) => void;
let startScript: Script;
let listed: unknown[] = [];
let requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
const open = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    open.add(res);
    res.on('close', () => open.delete(res));
    const json = (status: number, value?: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(value === undefined ? '' : JSON.stringify(value));
    };
    if (req.url === '/sandboxes' && req.method === 'POST') {
      return json(201, { sandboxID: 'sbx1', templateID: 't', envdVersion: '0.5.7', envdAccessToken: 'tok' });
    }
    if (req.url === '/sandboxes' && req.method === 'GET') return json(200, listed);
    if (req.url?.startsWith('/sandboxes/') && req.method === 'DELETE') return json(204);
    if (req.url === '/process.Process/Start') {
      res.writeHead(200, { 'Content-Type': 'application/connect+json' });
      return startScript(res);
    }
    if (req.url?.startsWith('/process.Process/')) return json(200, {});
    json(404, { code: 404, message: 'no such route' });
  });
});

const event = (e: unknown) => encodeJsonEnvelope({ event: e });
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('e2b provider against a scripted server', () => {
  let provider: E2BProvider;
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    provider = await createE2BProvider(
      {
        options: {
          apiKey: 'ark_key',
          apiUrl: url,
          sandboxUrl: url,
          streamIdleTimeoutMs: 3000,
          templates: { 'img/a': 'tool-a' },
        },
      },
      {},
    );
  });
  beforeEach(() => {
    requests = [];
  });
  after(async () => {
    await provider.close();
    for (const res of open) res.destroy();
    server.close();
  });

  it('creates with its labels and limits as metadata, closed network, the mapped template, a TTL', async () => {
    const s = await provider.create({
      image: 'img/a',
      labels: { task: 'x' },
      ttlMs: 90_500,
      limits: { pids: 64 },
    });
    const body = JSON.parse(requests[0]!.body.toString());
    assert.equal(body.templateID, 'tool-a');
    assert.equal(body.timeout, 91);
    assert.equal(body.allow_internet_access, false);
    assert.equal(body.metadata.task, 'x');
    assert.equal(body.metadata[LABELS.run], currentRunId());
    assert.equal(body.metadata['sandgym.limit.pids'], '64');
    assert.equal(s.labels[LABELS.ttlMs], '90500');
    await s.close();
    assert.equal(requests.at(-1)!.method, 'DELETE');
  });

  it('asks for keepalives, routes by header, sends the access token, and returns a failing exit as data', async () => {
    startScript = (res) => {
      res.write(event({ start: { pid: 4 } }));
      res.write(event({ data: { stdout: b64('partial out\n') } }));
      res.write(event({ data: { stderr: b64('boom\n') } }));
      res.write(
        event({ end: { exitCode: 2, exited: true, status: 'exit status 2', error: 'exit status 2' } }),
      );
      res.end(encodeJsonEnvelope({}, ENVELOPE_END_STREAM));
    };
    const s = await provider.create({ image: 'img/a' });
    const r = await s.exec('false');
    assert.deepEqual([r.exitCode, r.stdout, r.stderr, r.timedOut], [2, 'partial out\n', 'boom\n', false]);
    const start = requests.find((q) => q.url === '/process.Process/Start')!;
    assert.equal(start.headers['keepalive-ping-interval'], '1');
    assert.equal(start.headers['e2b-sandbox-id'], 'sbx1');
    assert.equal(start.headers['e2b-sandbox-port'], '49983');
    assert.equal(start.headers['x-access-token'], 'tok');
    assert.equal(start.headers['connect-timeout-ms'], String(120_000 + 5000));
    await s.close();
  });

  it('fails a silent stream at the read deadline with a clear error instead of hanging', async () => {
    startScript = (res) => res.write(event({ start: { pid: 5 } }));
    const s = await provider.create({ image: 'img/a' });
    const t0 = Date.now();
    await assert.rejects(s.exec('sleep 100', { timeoutMs: 600_000 }), (e: unknown) => {
      assert.ok(isSandboxError(e));
      assert.match(e.message, /nothing received for 3000 ms \(no data, no keepalive\)/);
      assert.equal(e.isRetryable, true);
      return true;
    });
    assert.ok(Date.now() - t0 < 10_000);
    await s.close();
  });

  it('keeps a quiet command alive through keepalives, past the read deadline', async () => {
    startScript = (res) => {
      res.write(event({ start: { pid: 6 } }));
      const beat = setInterval(() => res.write(event({ keepalive: {} })), 500);
      setTimeout(() => {
        clearInterval(beat);
        res.write(event({ data: { stdout: b64('done\n') } }));
        res.write(event({ end: { exited: true, status: 'exit status 0' } }));
        res.end(encodeJsonEnvelope({}, ENVELOPE_END_STREAM));
      }, 4500);
    };
    const s = await provider.create({ image: 'img/a' });
    const r = await s.exec('sleep 4; echo done');
    assert.deepEqual([r.exitCode, r.stdout], [0, 'done\n']);
    await s.close();
  });

  it('turns a stream cut before its end into a SandboxError', async () => {
    startScript = (res) => {
      res.write(event({ start: { pid: 7 } }));
      setTimeout(() => res.destroy(), 50);
    };
    const s = await provider.create({ image: 'img/a' });
    await assert.rejects(s.exec('true'), (e: unknown) => isSandboxError(e) && e.sandboxId === 'sbx1');
    await s.close();
  });

  it('gc kills the sandgym sandboxes of dead runs, keeps live ones, ignores others', async () => {
    const meta = (run: string) => ({
      [LABELS.run]: run,
      [LABELS.createdAt]: String(Date.now()),
      [LABELS.ttlMs]: '3600000',
    });
    const deadRun = currentRunId().replace(/\.\d+\.(\d+)$/, '.999999.$1');
    listed = [
      { sandboxID: 'dead1', templateID: 't', metadata: meta(deadRun), startedAt: '', endAt: '' },
      { sandboxID: 'live1', templateID: 't', metadata: meta(currentRunId()), startedAt: '', endAt: '' },
      { sandboxID: 'other', templateID: 't', metadata: { team: 'x' }, startedAt: '', endAt: '' },
    ];
    const report = await provider.gc();
    assert.deepEqual(report, { provider: 'e2b', removed: ['dead1'], kept: 1 });
    assert.deepEqual(
      requests.filter((q) => q.method === 'DELETE').map((q) => q.url),
      ['/sandboxes/dead1'],
    );
  });
});
