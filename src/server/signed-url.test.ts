import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getSignature } from 'e2b';
import type { ServedSandbox } from './sandbox-registry.ts';
import { fileUrlSignature, signedFileSandbox } from './signed-url.ts';

const sandbox = (id: string, token: string) => ({ id, envdAccessToken: token }) as ServedSandbox;
const a = sandbox('a', 'token-a');
const b = sandbox('b', 'token-b');

function url(q: Record<string, string>): URL {
  const u = new URL('http://127.0.0.1:3000/files');
  for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
  return u;
}

describe('signed /files URLs', () => {
  it("sign as the official SDK's getSignature does, with and without expiry", async () => {
    for (const expirationInSeconds of [undefined, 60]) {
      const sdk = await getSignature({
        path: '/tmp/x.txt',
        operation: 'read',
        user: 'user',
        expirationInSeconds,
        envdAccessToken: 'token-a',
      });
      const ours = fileUrlSignature({
        path: '/tmp/x.txt',
        operation: 'read',
        username: 'user',
        accessToken: 'token-a',
        expiration: sdk.expiration ?? undefined,
      });
      assert.equal(ours, sdk.signature);
    }
  });

  it('route to the sandbox whose token signed the URL', async () => {
    const sig = await getSignature({
      path: '/p',
      operation: 'write',
      user: undefined,
      envdAccessToken: 'token-b',
    });
    assert.equal(signedFileSandbox(url({ path: '/p', signature: sig.signature }), 'POST', [a, b]), b);
  });

  it('refuse a changed path, another operation, or an unknown sandbox with 401 and a message', async () => {
    const sig = await getSignature({
      path: '/p',
      operation: 'read',
      user: undefined,
      envdAccessToken: 'token-a',
    });
    const refused = (f: () => unknown) =>
      assert.throws(f, (e: Error & { status?: number }) => {
        assert.equal(e.status, 401);
        assert.match(e.message, /invalid signature/);
        return true;
      });
    refused(() => signedFileSandbox(url({ path: '/etc/shadow', signature: sig.signature }), 'GET', [a, b]));
    refused(() => signedFileSandbox(url({ path: '/p', signature: sig.signature }), 'POST', [a, b]));
    refused(() => signedFileSandbox(url({ path: '/p', signature: sig.signature }), 'GET', [b]));
  });

  it('refuse an expired URL, saying so', () => {
    const expiration = Math.floor(Date.now() / 1000) - 10;
    const signature = fileUrlSignature({
      path: '/p',
      operation: 'read',
      username: '',
      accessToken: 'token-a',
      expiration,
    });
    assert.throws(
      () =>
        signedFileSandbox(url({ path: '/p', signature, signature_expiration: String(expiration) }), 'GET', [
          a,
        ]),
      /expired/,
    );
  });
});
