import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SandboxProvider } from '../sandbox/index.ts';
import { KeyStore } from './api-keys.ts';
import { HttpError } from './http-io.ts';
import { parseNewSandbox, templateImage } from './new-sandbox.ts';
import { parseMetadataFilter } from './sandbox-listing.ts';
import { resolveServerOptions } from './server-options.ts';

const settings = resolveServerOptions({
  provider: {} as SandboxProvider,
  keys: KeyStore.of([]),
  maxTimeoutS: 3600,
  maxLimits: { memoryBytes: 1024 ** 3 },
});
const status = (n: number, pattern: RegExp) => (e: unknown) =>
  e instanceof HttpError && e.status === n && pattern.test(e.message);

describe('create requests', () => {
  it('reads templateID, timeout (default 15 s), metadata, envVars and limits', () => {
    const spec = parseNewSandbox(
      {
        templateID: 'sandgym/base',
        metadata: { 'sandgym.limit.pids': '64', team: 'x' },
        envVars: { A: '1' },
        secure: true,
        autoPause: false,
      },
      'key1',
      settings,
    );
    assert.deepEqual(
      [spec.image, spec.timeoutS, spec.envVars, spec.limits, spec.network],
      ['sandgym/base:latest', 15, { A: '1' }, { pids: 64 }, false],
    );
  });

  it('refuses what it cannot honour, with the reason', () => {
    const parse = (body: Record<string, unknown>) => () =>
      parseNewSandbox({ templateID: 'sandgym/base', ...body }, 'k', settings);
    assert.throws(parse({ templateID: '' }), status(400, /templateID/));
    assert.throws(parse({ timeout: 3601 }), status(400, /maximum of 3600/));
    assert.throws(parse({ timeout: 1.5 }), status(400, /whole number/));
    assert.throws(parse({ autoPause: true }), status(400, /autoPause is not supported/));
    assert.throws(parse({ allow_internet_access: true }), status(400, /--allow-network/));
    assert.throws(
      parse({ metadata: { 'sandgym.limit.memory-bytes': String(2 * 1024 ** 3) } }),
      status(400, /memoryBytes.*maximum/),
    );
    assert.throws(parse({ envVars: { 'A=B': 'x' } }), status(400, /environment variable/));
    assert.throws(parse({ metadata: { n: 5 } }), status(400, /metadata\.n/));
    // What the SDK sends for network: { allowOut: [...] } / { denyOut: [...] }.
    assert.throws(
      parse({ network: { allowOut: ['8.8.8.8'] } }),
      status(400, /network\.allowOut is not enforced/),
    );
    assert.throws(
      parse({ network: { denyOut: ['0.0.0.0/0'] } }),
      status(400, /network\.denyOut is not enforced/),
    );
    assert.equal(parse({ network: { allowPublicTraffic: false } })().network, false);
  });

  it("maps template names to images: 'base' (the SDKs' default) to the base image, others as configured", () => {
    assert.equal(templateImage('base', 'k'), 'sandgym/base:latest');
    assert.equal(templateImage('py', 'k', { py: 'python:3.12' }), 'python:3.12');
  });

  it("keeps each key's snapshots to itself", () => {
    assert.equal(templateImage('sandgym-serve/key1/snap', 'key1'), 'sandgym-serve/key1/snap:latest');
    assert.throws(() => templateImage('sandgym-serve/key1/snap', 'key2'), status(404, /not found/));
    assert.throws(() => templateImage('Not An Image', 'key1'), status(404, /not found/));
  });
});

describe('list filters', () => {
  it('decodes the metadata query as the E2B SDK encodes it (pairs of URL-encoded keys and values)', () => {
    const encoded = new URLSearchParams({
      [encodeURIComponent('a/b')]: encodeURIComponent('x&y=z'),
      c: 'd',
    }).toString();
    assert.deepEqual(parseMetadataFilter(encoded), { 'a/b': 'x&y=z', c: 'd' });
    assert.deepEqual(parseMetadataFilter(null), {});
    assert.throws(() => parseMetadataFilter('a=%E0%A4%A'), status(400, /malformed metadata/));
  });
});
