import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../../errors.ts';

/**
 * The SecretId/SecretKey pairs `sandgym serve` issues for its Tencent Cloud API. TC3 is an HMAC, so the
 * server needs each secret itself (a hash would not do): the file is created mode 0600, one pair a line,
 * `<SecretId> <SecretKey> [label]`, `#` starting a comment.
 */
export class AgsKeyStore {
  private constructor(private readonly secrets: ReadonlyMap<string, string>) {}

  static of(pairs: Record<string, string>): AgsKeyStore {
    return new AgsKeyStore(new Map(Object.entries(pairs)));
  }

  static async fromFile(path: string): Promise<AgsKeyStore> {
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    return new AgsKeyStore(parseAgsKeys(text, path));
  }

  get size(): number {
    return this.secrets.size;
  }

  secretKey(secretId: string): string | undefined {
    return this.secrets.get(secretId);
  }
}

export function parseAgsKeys(text: string, source: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(AKID[A-Za-z0-9]{16,})\s+([A-Za-z0-9]{32,})(?:\s+.*)?$/.exec(line);
    if (!m) throw new ConfigError(`${source}:${i + 1}: expected "<SecretId> <SecretKey> [label]"`);
    out.set(m[1]!, m[2]!);
  }
  return out;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function alnum(n: number): string {
  // 62 does not divide 256: redraw the bytes above the last whole multiple so every character is as likely.
  let out = '';
  while (out.length < n) for (const b of randomBytes(n)) if (b < 248 && out.length < n) out += ALNUM[b % 62];
  return out;
}

/** A new pair in Tencent Cloud's shape (`AKID` + 32, 32 characters), appended to `path`. */
export async function addAgsKey(path: string, label = ''): Promise<{ secretId: string; secretKey: string }> {
  if (/[\r\n]/.test(label)) throw new ConfigError('a key label is one line of text');
  const secretId = `AKID${alnum(32)}`;
  const secretKey = alnum(32);
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${secretId} ${secretKey}${label ? ` ${label}` : ''}\n`, { mode: 0o600 });
  return { secretId, secretKey };
}
