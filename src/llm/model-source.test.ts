import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { loadChatTemplate } from './load-chat-template.ts';
import { modelSourceFromEnv, resolveModelDir } from './model-source.ts';

const TINY_CHATML = new URL('./fixtures/tiny-chatml/', import.meta.url).pathname;
const SHA = 'feed'.padEnd(40, '0');
const TOKEN = 'hf_test';

/**
 * A loopback stand-in for the Hub, answering the calls @huggingface/hub makes: model info at a
 * revision, paths-info, and `resolve` downloads (a one-byte range probe for size and ETag, then the body).
 * It serves the tiny ChatML model directory as `acme/tiny-chat`, and `acme/gated` to token holders.
 */
let server: Server;
let endpoint: string;
const requests: string[] = [];
const files = new Map<string, Buffer>();

before(async () => {
  for (const name of ['tokenizer.json', 'tokenizer_config.json', 'generation_config.json', 'config.json']) {
    files.set(name, await readFile(join(TINY_CHATML, name)));
  }
  files.set('model.safetensors', Buffer.from('weights are never downloaded'));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    requests.push(`${req.method} ${url.pathname}`);
    const gated = url.pathname.includes('acme/gated');
    if (gated && req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"gated"}');
      return;
    }
    const repo = /acme\/(tiny-chat|gated)/.exec(url.pathname)?.[0];
    if (!repo) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Repository not found"}');
      return;
    }
    if (url.pathname === `/api/models/${repo}/revision/main`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          _id: 'x',
          id: repo,
          sha: SHA,
          private: gated,
          siblings: [...files.keys()].map((rfilename) => ({ rfilename })),
        }),
      );
      return;
    }
    if (req.method === 'POST' && url.pathname === `/api/models/${repo}/paths-info/${SHA}`) {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { paths } = JSON.parse(body) as { paths: string[] };
        const info = paths.map((path) => ({
          type: 'file',
          path,
          oid: createHash('sha1').update(files.get(path)!).digest('hex'),
          size: files.get(path)!.length,
          lastCommit: { id: SHA, title: 'init', date: '2025-01-01T00:00:00Z' },
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info));
      });
      return;
    }
    const file = url.pathname.startsWith(`/${repo}/resolve/${SHA}/`)
      ? files.get(url.pathname.slice(`/${repo}/resolve/${SHA}/`.length))
      : undefined;
    if (!file) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
      return;
    }
    const etag = `"${createHash('sha1').update(file).digest('hex')}"`;
    if (req.headers.range === 'bytes=0-0') {
      res.writeHead(206, {
        etag,
        'content-range': `bytes 0-0/${file.length}`,
        'content-type': 'application/octet-stream',
      });
      res.end(file.subarray(0, 1));
      return;
    }
    res
      .writeHead(200, { etag, 'content-length': file.length, 'content-type': 'application/octet-stream' })
      .end(file);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((done) => server.close(() => done())));

const noNetwork: typeof fetch = () => Promise.reject(new Error('the network was used'));

describe('resolveModelDir', () => {
  it('uses a local directory as it is', async () => {
    assert.equal(await resolveModelDir(TINY_CHATML, { fetch: noNetwork }), TINY_CHATML.replace(/\/$/, ''));
  });

  it("downloads only the tokenizer files of a Hub model into huggingface_hub's cache layout, then reuses them offline", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'sandgym-hf-'));
    try {
      requests.length = 0;
      const dir = await resolveModelDir('acme/tiny-chat', { endpoint, cacheDir });
      assert.equal(dir, join(cacheDir, 'models--acme--tiny-chat', 'snapshots', SHA));
      assert.equal(
        (await readFile(join(cacheDir, 'models--acme--tiny-chat', 'refs', 'main'), 'utf8')).trim(),
        SHA,
      );
      const link = join(dir, 'tokenizer.json');
      assert.ok(
        (await lstat(link)).isSymbolicLink(),
        'snapshots link to blobs, as huggingface_hub lays them out',
      );
      assert.match(await readlink(link), /blobs/);
      assert.ok(!requests.some((r) => r.includes('safetensors')), 'weights are not downloaded');
      const template = await loadChatTemplate(dir);
      assert.equal(template.maxContextTokens, 2048, 'config.json came too');

      requests.length = 0;
      assert.equal(await resolveModelDir('acme/tiny-chat', { endpoint, cacheDir, offline: true }), dir);
      assert.equal(await resolveModelDir('acme/tiny-chat', { endpoint, cacheDir }), dir);
      assert.deepEqual(requests, [], 'a cached snapshot needs no network');
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it('reads a snapshot that Python tools cached (refs/main, snapshots/<commit>) without the network', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'sandgym-hf-'));
    try {
      const repoDir = join(cacheDir, 'models--Qwen--Qwen3-8B');
      const snapshot = join(repoDir, 'snapshots', SHA);
      await mkdir(snapshot, { recursive: true });
      await mkdir(join(repoDir, 'refs'));
      await writeFile(join(repoDir, 'refs', 'main'), SHA);
      for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
        await writeFile(join(snapshot, name), await readFile(join(TINY_CHATML, name)));
      }
      const env = { HF_HUB_CACHE: cacheDir, HF_HUB_OFFLINE: '1' };
      assert.equal(
        await resolveModelDir('Qwen/Qwen3-8B', { ...modelSourceFromEnv(env), fetch: noNetwork }),
        snapshot,
      );
      assert.equal(
        await resolveModelDir('Qwen/Qwen3-8B', { cacheDir, revision: SHA, fetch: noNetwork }),
        snapshot,
      );
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it('sends HF_TOKEN for gated models and says what to do when it is missing', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'sandgym-hf-'));
    try {
      await assert.rejects(resolveModelDir('acme/gated', { endpoint, cacheDir }), (e: Error) => {
        assert.ok(isConfigError(e));
        assert.match(e.message, /acme\/gated@main: cannot read it .*HF_TOKEN/);
        return true;
      });
      const dir = await resolveModelDir('acme/gated', { endpoint, cacheDir, token: TOKEN });
      assert.ok(dir.endsWith(SHA));
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it('refuses clearly: an unknown model, offline without a cache, a name that is neither', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'sandgym-hf-'));
    try {
      await assert.rejects(
        resolveModelDir('acme/missing', { endpoint, cacheDir }),
        /acme\/missing@main: cannot read it/,
      );
      await assert.rejects(
        resolveModelDir('acme/tiny-chat', { endpoint, cacheDir, offline: true }),
        /not in the Hugging Face cache .* HF_HUB_OFFLINE is set; download its tokenizer first/,
      );
      await assert.rejects(
        resolveModelDir('./no/such/dir', { cacheDir }),
        /not a directory, and not a Hugging Face id/,
      );
      await assert.rejects(resolveModelDir('acme/..', { cacheDir }), /not a Hugging Face id/);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it("takes huggingface_hub's environment variables", () => {
    assert.deepEqual(
      modelSourceFromEnv({ HF_HOME: '/h', HF_ENDPOINT: 'http://mirror', HF_TOKEN: 't', HF_HUB_OFFLINE: '1' }),
      {
        cacheDir: '/h/hub',
        endpoint: 'http://mirror',
        token: 't',
        offline: true,
      },
    );
    assert.equal(modelSourceFromEnv({ HF_HOME: '/h', HF_HUB_CACHE: '/c' }).cacheDir, '/c');
    assert.equal(modelSourceFromEnv({ XDG_CACHE_HOME: '/x' }).cacheDir, '/x/huggingface/hub');
  });
});
