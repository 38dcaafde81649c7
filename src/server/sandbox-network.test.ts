import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { createSandbox, runInSandbox } from './testing/http-client.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

const KEY = 'sgk_network-test-key';
const skip = await localTestSkipReason();

describe('sandgym serve: a key holder with network', { skip: skip ?? false, timeout: 120_000 }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ keys: [KEY], allowNetwork: true });
  });
  after(() => t?.close());

  it("cannot reach the server's own API on the host loopback (nor through the gateway) from a sandbox with internet access", async () => {
    const s = await createSandbox(t.url, KEY, { allow_internet_access: true });
    const { port } = new URL(t.url);
    // The default route goes through pasta: the sandbox has network, only not to the host.
    const route = await runInSandbox(t.url, s, 'awk \'$2 == "00000000" { print $3 }\' /proc/net/route');
    const hex = route.trim();
    assert.match(hex, /^[0-9A-F]{8}$/, 'a default route');
    const gateway = (hex.match(/../g) ?? [])
      .reverse()
      .map((b) => Number.parseInt(b, 16))
      .join('.');
    const probe = ['127.0.0.1', 'localhost', gateway]
      .map(
        (host) =>
          `python3 -c "import socket; socket.create_connection(('${host}', ${port}), 4); print('REACHED ${host}')" 2>/dev/null || echo 'refused ${host}'`,
      )
      .join('; ');
    const out = await runInSandbox(t.url, s, probe);
    assert.doesNotMatch(out, /REACHED/, out);
    assert.equal(out.match(/refused/g)?.length, 3, out);
  });
});
