import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registryAuth, registryHost } from './registry-auth.ts';

describe('registryHost', () => {
  it('tells a registry host from a Docker Hub namespace', () => {
    assert.equal(registryHost('sandgym/base'), 'docker.io');
    assert.equal(registryHost('python:3.11'), 'docker.io');
    assert.equal(registryHost('docker.io/library/python'), 'docker.io');
    assert.equal(registryHost('ghcr.io/org/img:tag'), 'ghcr.io');
    assert.equal(registryHost('localhost:5000/img'), 'localhost:5000');
    assert.equal(registryHost('localhost/img'), 'localhost');
  });
});

describe('registryAuth (a config.json written by the test; fake credentials)', () => {
  let dir: string;
  const config = (body: object) => {
    const path = join(dir, `config-${Math.random()}.json`);
    return writeFile(path, JSON.stringify(body)).then(() => path);
  };
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-auth-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads an inline auths entry, Docker Hub under its legacy key', async () => {
    const path = await config({
      auths: {
        'https://index.docker.io/v1/': { auth: b64('hubuser:hubpass') },
        'ghcr.io': { auth: b64('gh:tok:en') },
      },
    });
    assert.deepEqual(await registryAuth('sandgym/base', path), {
      serveraddress: 'https://index.docker.io/v1/',
      username: 'hubuser',
      password: 'hubpass',
    });
    assert.deepEqual(await registryAuth('ghcr.io/o/i', path), {
      serveraddress: 'ghcr.io',
      username: 'gh',
      password: 'tok:en',
    });
    assert.equal(await registryAuth('quay.io/o/i', path), undefined);
  });

  it('prefers a credential helper and maps its <token> user to an identity token', async () => {
    const path = await config({
      credHelpers: { 'ghcr.io': 'fake' },
      auths: { 'ghcr.io': { auth: b64('a:b') } },
    });
    const calls: string[] = [];
    const helper = async (name: string, server: string) => {
      calls.push(`${name} ${server}`);
      return JSON.stringify({ ServerURL: server, Username: '<token>', Secret: 'idtoken' });
    };
    assert.deepEqual(await registryAuth('ghcr.io/o/i', path, helper), {
      serveraddress: 'ghcr.io',
      identitytoken: 'idtoken',
    });
    assert.deepEqual(calls, ['fake ghcr.io']);
  });

  it('falls back to auths when the helper has nothing, and is anonymous without a config', async () => {
    const path = await config({ credsStore: 'fake', auths: { 'ghcr.io': { identitytoken: 'it' } } });
    const failing = async () => {
      throw new Error('credentials not found in native keychain');
    };
    assert.deepEqual(await registryAuth('ghcr.io/o/i', path, failing), {
      serveraddress: 'ghcr.io',
      identitytoken: 'it',
    });
    assert.equal(await registryAuth('sandgym/base', join(dir, 'missing.json')), undefined);
  });
});
