import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { addApiKey, hashApiKey, KeyStore, parseKeysFile } from './api-keys.ts';

describe('API keys', () => {
  it('stores only hashes, in a 0600 file, and accepts keys added while running', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-keys-'));
    try {
      const path = join(dir, 'serve', 'keys');
      const first = await addApiKey(path, 'alice');
      const store = await KeyStore.fromFile(path);
      assert.match(first.key, /^sgk_[A-Za-z0-9_-]{43}$/);
      const text = await readFile(path, 'utf8');
      assert.ok(!text.includes(first.key), 'the key itself is never written');
      assert.equal(text, `${hashApiKey(first.key)} alice\n`);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await store.lookup(first.key), { id: first.id, label: 'alice' });
      assert.equal(await store.lookup('sgk_wrong'), undefined);
      const second = await addApiKey(path);
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await store.lookup(second.key))?.id, second.id, 'picked up without a restart');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the keys it had when the file is broken half-way through an edit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-keys-'));
    try {
      const path = join(dir, 'keys');
      const { key } = await addApiKey(path);
      const store = await KeyStore.fromFile(path);
      await writeFile(path, 'not a hash\n');
      await new Promise((r) => setTimeout(r, 1100));
      assert.ok(await store.lookup(key));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads comments and labels, and names the bad line', () => {
    const hash = hashApiKey('k');
    const keys = parseKeysFile(`# keys\n\n${hash}\n${hashApiKey('j')} bob the builder\n`, 'keys');
    assert.equal(keys.get(hash)?.label, '');
    assert.equal(keys.get(hashApiKey('j'))?.label, 'bob the builder');
    assert.throws(
      () => parseKeysFile(`${hash}\nsgk_plaintext\n`, '/etc/keys'),
      (e: unknown) => isConfigError(e) && /\/etc\/keys:2/.test(e.message) && /--add-key/.test(e.message),
    );
  });
});
