import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { downloadHubDataset, hubSettingsFromEnv } from './hub-download.ts';
import { loadTasks } from './load-tasks.ts';
import { writeSwebenchParquet } from './testing/published-parquet.ts';

/**
 * A local stand-in for the Hub's API: the revision endpoint and `resolve` downloads (redirected to a
 * "CDN" path, as the Hub does), a gated set that needs a token, a flaky set and one that never answers.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandgym-hub-'));
const SHA = 'c0ffee'.padEnd(40, '0');
const TOKEN = 'hf_test_token';
const requests: string[] = [];
let flakyFailures = 0;
let server: Server;
let endpoint: string;

const row = {
  repo: 'acme/widgets',
  instance_id: 'acme__widgets-1',
  base_commit: '0'.repeat(40),
  patch: '',
  test_patch: '',
  problem_statement: 'Broken.',
  hints_text: '',
  created_at: '2024-01-01T00:00:00Z',
  version: '1.0',
  FAIL_TO_PASS: '["t.py::a"]',
  PASS_TO_PASS: '[]',
  environment_setup_commit: '0'.repeat(40),
};
const parquetFile = join(dir, 'source.parquet');
const FILES = ['README.md', 'data/dev-00000-of-00001.parquet', 'data/test-00000-of-00001.parquet'];

before(async () => {
  writeSwebenchParquet(parquetFile, [row]);
  server = createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    const gated = url.includes('/acme/gated');
    if (gated && req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end('{"error": "Access to dataset acme/gated is restricted"}');
      return;
    }
    if (url.includes('/acme/hangs/')) return; // never answers
    if (url.includes('/acme/stalls/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"sha": '); // headers, then silence
      return;
    }
    if (url.includes('/acme/flaky/') && flakyFailures-- > 0) {
      res.writeHead(503).end('busy');
      return;
    }
    if (/^\/api\/datasets\/acme\/[\w-]+\/revision\/main$/.test(url)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'acme/x', sha: SHA, siblings: FILES.map((rfilename) => ({ rfilename })) }),
      );
    } else if (url.startsWith('/datasets/acme/') && url.includes(`/resolve/${SHA}/data/`)) {
      res.writeHead(302, { location: `/cdn/${SHA}` }).end();
    } else if (url === `/cdn/${SHA}`) {
      res.writeHead(200).end(readFileSync(parquetFile));
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('downloads a split into a Hub-style cache, then serves it from the cache', async () => {
  const cacheDir = join(dir, 'cache-1');
  requests.length = 0;
  const paths = await downloadHubDataset({ repo: 'acme/swe-mini', split: 'test', endpoint, cacheDir });
  assert.deepEqual(paths, [
    join(cacheDir, 'datasets--acme--swe-mini', 'snapshots', SHA, 'data/test-00000-of-00001.parquet'),
  ]);
  const { tasks } = await loadTasks(paths);
  assert.deepEqual(
    tasks.map((t) => t.id),
    ['acme__widgets-1'],
  );
  assert.equal(requests.filter((r) => r.includes('/resolve/')).length, 1);

  requests.length = 0;
  const again = await downloadHubDataset({ repo: 'acme/swe-mini', split: 'test', endpoint, cacheDir });
  assert.deepEqual(again, paths);
  assert.deepEqual(
    requests,
    ['/api/datasets/acme/swe-mini/revision/main'],
    'only the revision is asked again',
  );

  const all = await downloadHubDataset({ repo: 'acme/swe-mini', endpoint, cacheDir });
  assert.equal(all.length, 2, 'without a split, every data file; README.md is not data');
});

test('a cached revision loads without the network', async () => {
  const cacheDir = join(dir, 'cache-2');
  const paths = await downloadHubDataset({ repo: 'acme/swe-mini', split: 'test', endpoint, cacheDir });
  const offline = await downloadHubDataset({
    repo: 'acme/swe-mini',
    split: 'test',
    endpoint: 'http://127.0.0.1:9/',
    cacheDir,
    retryDelayMs: 0,
  });
  assert.deepEqual(offline, paths);
});

test('gated sets need HF_TOKEN; the token is sent as a bearer token', async () => {
  const cacheDir = join(dir, 'cache-3');
  await assert.rejects(
    downloadHubDataset({ repo: 'acme/gated', endpoint, cacheDir }),
    /dataset acme\/gated: HTTP 401 .*set HF_TOKEN/,
  );
  const paths = await downloadHubDataset({
    repo: 'acme/gated',
    split: 'dev',
    endpoint,
    cacheDir,
    token: TOKEN,
  });
  assert.equal(paths.length, 1);
});

test('server errors are retried; unknown sets and splits are clear errors', async () => {
  flakyFailures = 2;
  const cacheDir = join(dir, 'cache-4');
  const paths = await downloadHubDataset({
    repo: 'acme/flaky',
    split: 'test',
    endpoint,
    cacheDir,
    retryDelayMs: 0,
  });
  assert.equal(paths.length, 1);
  flakyFailures = 3;
  await assert.rejects(
    downloadHubDataset({ repo: 'acme/flaky', endpoint, cacheDir: join(dir, 'cache-5'), retryDelayMs: 0 }),
    /HTTP 503/,
  );
  await assert.rejects(
    downloadHubDataset({ repo: 'nobody/nothing', endpoint, cacheDir, retryDelayMs: 0 }),
    /HTTP 404 .*check the dataset name and revision/,
  );
  await assert.rejects(
    downloadHubDataset({ repo: 'acme/swe-mini', split: 'train', endpoint, cacheDir }),
    /no split "train" files .*it has: README\.md, data\/dev/,
  );
});

test('a Hub that never answers, or stops mid-answer, fails after timeoutMs, saying which option to raise', async () => {
  await assert.rejects(
    downloadHubDataset({
      repo: 'acme/stalls',
      endpoint,
      cacheDir: join(dir, 'cache-7'),
      timeoutMs: 100,
      retryDelayMs: 0,
    }),
    /reading .* failed: nothing received for 100 ms \(raise timeoutMs\)/,
  );
  await assert.rejects(
    downloadHubDataset({
      repo: 'acme/hangs',
      endpoint,
      cacheDir: join(dir, 'cache-6'),
      timeoutMs: 100,
      retryDelayMs: 0,
    }),
    /nothing received for 100 ms \(raise timeoutMs\)/,
  );
});

test('settings come from HF_ENDPOINT and HF_TOKEN', () => {
  assert.deepEqual(hubSettingsFromEnv({}), { endpoint: 'https://huggingface.co' });
  assert.deepEqual(hubSettingsFromEnv({ HF_ENDPOINT: 'https://hf-mirror.com', HF_TOKEN: 'hf_x' }), {
    endpoint: 'https://hf-mirror.com',
    token: 'hf_x',
  });
});
