import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { processStartTicks } from '../owner.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { readMeta } from './sandbox-meta.ts';
import { localTestSkipReason } from './test-support.ts';

const skip = await localTestSkipReason();
/** The sandbox's network interfaces (it has no /sys). */
const LIST_LINKS = 'awk -F: \'NR > 2 { gsub(/ /, "", $1); print $1 }\' /proc/net/dev';
/** An address outside that this machine may reach (its npm registry); checked from the host first. */
const OUTSIDE_HOST = 'registry.npmjs.org';

/** Whether the host itself connects to host:port (the machine may have no Internet at all). */
function hostReaches(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5000 }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

async function waitGone(p: { pid: number; startTicks: number }, timeoutMs = 20_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (processStartTicks(p.pid) === p.startTicks) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * Run in the sandbox: connects to each "host:port" of argv[2:] in parallel (timeout argv[1] seconds) and prints one JSON object of
 * what each gave: the first bytes it read, "connected" when none came, or the error.
 */
const PROBE = `
import json, socket, sys, threading
out = {}
def probe(target):
    host, port = target.rsplit(':', 1)
    try:
        with socket.create_connection((host.strip('[]'), int(port)), float(sys.argv[1])) as s:
            out[target] = 'connected'
            s.settimeout(2)
            try:
                out[target] = 'read:' + s.recv(16).decode(errors='replace')
            except OSError:
                pass
    except Exception as e:
        out[target] = 'error:' + type(e).__name__
threads = [threading.Thread(target=probe, args=(t,)) for t in sys.argv[2:]]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps(out))
`;

describe('local sandbox network', { skip: skip ?? false, timeout: 180_000 }, () => {
  let provider: LocalProvider;
  before(async () => {
    provider = await createLocal();
  });
  after(() => provider.close());

  it('with network: reaches outside, but not the host (loopback, its addresses, gateway), private ranges or the metadata address', async (t) => {
    // Listening on every address, so only the isolation can stop a connection to any of the host's.
    const server = createServer((c) => c.end('HOST\n'));
    await new Promise<void>((r) => server.listen(0, '::', r));
    const port = (server.address() as { port: number }).port;
    try {
      const s = await provider.create({ image: 'sandgym/base', network: true });
      const meta = (await readMeta(s.dir))!;
      assert.ok(meta.pasta, 'meta.json records pasta for gc');

      const links = (await s.exec(LIST_LINKS)).stdout.split(/\s+/).filter(Boolean);
      assert.equal(links.length, 2, `lo and pasta's interface: ${links}`);
      assert.ok(links.includes('lo'));
      const route = await s.exec('awk \'$2 == "00000000" { print $3 }\' /proc/net/route');
      const hex = route.stdout.trim();
      assert.match(hex, /^[0-9A-F]{8}$/, 'a default route through pasta');
      const gateway = (hex.match(/../g) ?? [])
        .reverse()
        .map((b) => Number.parseInt(b, 16))
        .join('.');

      const hostAddresses = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal)
        .map((a) => (a!.family === 'IPv6' ? `[${a!.address.replace(/%.*/, '')}]` : a!.address));
      const targets = [
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        `${gateway}:${port}`,
        ...hostAddresses.map((a) => `${a}:${port}`),
        '169.254.169.254:80',
        `10.0.0.1:${port}`,
        `192.168.0.1:${port}`,
        `172.17.0.1:${port}`,
      ];
      const r = await s.exec(['python3', '-c', PROBE, '4', ...targets], { timeoutMs: 60_000 });
      assert.equal(r.exitCode, 0, r.stderr);
      const results = JSON.parse(r.stdout) as Record<string, string>;
      for (const t of targets)
        assert.match(results[t]!, /^error:/, `${t} must be unreachable: ${results[t]}`);

      const outside = await lookup(OUTSIDE_HOST).catch(() => undefined);
      if (outside && (await hostReaches(OUTSIDE_HOST, 443))) {
        const dns = await s.exec(['getent', 'hosts', OUTSIDE_HOST], { timeoutMs: 30_000 });
        assert.equal(dns.exitCode, 0, `DNS works in the sandbox: ${dns.stderr}`);
        const out = await s.exec(['python3', '-c', PROBE, '20', `${OUTSIDE_HOST}:443`], {
          timeoutMs: 30_000,
        });
        assert.match(JSON.parse(out.stdout)[`${OUTSIDE_HOST}:443`], /^connected|^read:/, out.stdout);
      } else {
        t.diagnostic(`${OUTSIDE_HOST}:443 is unreachable from this host: outside access not checked`);
      }

      await s.close();
      assert.ok(await waitGone(meta.pasta), 'pasta ends with close()');
    } finally {
      server.close();
    }
  });

  it("the host's own connections are untouched: a closed port on its loopback still refuses at once", async () => {
    await provider.create({ image: 'sandgym/base', network: true }).then((s) => s.close());
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r));
    const started = Date.now();
    const code = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, timeout: 20_000 }, () => resolve('connected'));
      socket.on('timeout', () => resolve('timeout'));
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    // A firewall rule that dropped packets with no socket (the kernel's RST) made this a 2-minute timeout.
    assert.equal(code, 'ECONNREFUSED');
    assert.ok(Date.now() - started < 10_000);
  });

  it('without network: no interface but lo', async () => {
    const s = await provider.create({ image: 'sandgym/base' });
    assert.equal((await s.exec(LIST_LINKS)).stdout.trim(), 'lo');
    assert.equal((await readMeta(s.dir))!.pasta, undefined);
    await s.close();
  });

  it('pasta dies with the sandbox when its pid 1 is killed from outside', async () => {
    const s = await provider.create({ image: 'sandgym/base', network: true });
    const meta = (await readMeta(s.dir))!;
    const stat = readFileSync(`/proc/${meta.pasta!.pid}/status`, 'utf8');
    assert.match(stat, /^Name:\s+(pasta|passt)/m);
    process.kill(meta.init!.pid, 'SIGKILL');
    assert.ok(await waitGone(meta.pasta!), 'pasta is gone once the sandbox is');
    await s.close();
  });
});
