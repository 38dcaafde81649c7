import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../errors.ts';

/**
 * API keys of `sandgym serve`. The keys file holds only SHA-256 hashes, one key a line:
 * `<64 hex> [label]`, `#` starting a comment. A key is shown once, when `--add-key` makes it.
 * The key's id (its hash's first 16 hex digits) names its owner in sandboxes and logs; it is not secret.
 */
export interface ApiKeyRecord {
  id: string;
  label: string;
}

const KEY_PREFIX = 'sgk_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyIdOf(hash: string): string {
  return hash.slice(0, 16);
}

/** A new random key (256 bits), and the line that records its hash. */
export function newApiKey(label = ''): { key: string; line: string; id: string } {
  if (/[\r\n]/.test(label)) throw new ConfigError('an API key label is one line of text');
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const hash = hashApiKey(key);
  return { key, line: `${hash}${label ? ` ${label}` : ''}\n`, id: keyIdOf(hash) };
}

/** Appends a new key's hash to `path` (created with mode 0600) and returns the key, to show once. */
export async function addApiKey(path: string, label = ''): Promise<{ key: string; id: string }> {
  const made = newApiKey(label);
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, made.line, { mode: 0o600 });
  return { key: made.key, id: made.id };
}

export function parseKeysFile(text: string, source: string): Map<string, ApiKeyRecord> {
  const keys = new Map<string, ApiKeyRecord>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([0-9a-f]{64})(?:\s+(.*))?$/.exec(line);
    if (!m) {
      throw new ConfigError(
        `${source}:${i + 1}: expected "<sha256 hex of a key> [label]"; add keys with "sandgym serve --add-key"`,
      );
    }
    keys.set(m[1]!, { id: keyIdOf(m[1]!), label: m[2] ?? '' });
  }
  return keys;
}

/**
 * The keys the server accepts, read from the keys file and read again when the file changes (checked at
 * most once a second), so `--add-key` works on a running server.
 */
export class KeyStore {
  private keys = new Map<string, ApiKeyRecord>();
  private mtimeMs = -1;
  private checkedAtMs = 0;
  private refreshing: Promise<void> | undefined;

  private constructor(private readonly path: string | undefined) {}

  static async fromFile(path: string): Promise<KeyStore> {
    const store = new KeyStore(path);
    await store.reload();
    return store;
  }

  /** A fixed set of keys (tests, embedding): no file. */
  static of(keys: readonly string[]): KeyStore {
    const store = new KeyStore(undefined);
    store.keys = new Map(keys.map((k) => [hashApiKey(k), { id: keyIdOf(hashApiKey(k)), label: '' }]));
    return store;
  }

  get size(): number {
    return this.keys.size;
  }

  /** The record of a presented key, or undefined when it is not one of ours. */
  async lookup(key: string): Promise<ApiKeyRecord | undefined> {
    if (this.path !== undefined && Date.now() - this.checkedAtMs > 1000) {
      // A file broken by a half-done edit keeps the keys read before; start-up reports such a file.
      this.refreshing ??= this.reload()
        .catch(() => {})
        .finally(() => {
          this.refreshing = undefined;
        });
      await this.refreshing;
    }
    return this.keys.get(hashApiKey(key));
  }

  private async reload(): Promise<void> {
    const path = this.path!;
    this.checkedAtMs = Date.now();
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(path)).mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        this.keys = new Map();
        return;
      }
      throw e;
    }
    if (mtimeMs === this.mtimeMs) return;
    this.keys = parseKeysFile(await readFile(path, 'utf8'), path);
    this.mtimeMs = mtimeMs;
  }
}
