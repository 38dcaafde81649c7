import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SandboxError } from '../../errors.ts';
import { runHostCommand } from '../images/host-command.ts';
import { processStartTicks } from '../owner.ts';
import type { SpawnHost } from './fork-server.ts';

/**
 * Network access for a local sandbox, without the host's network namespace: the sandbox keeps the
 * namespace bwrap gave it, and pasta (Debian's passt), started on the host, attaches to it with a tap
 * device and carries its traffic through ordinary sockets of the host (user-mode NAT). pasta connects
 * from the host's namespace, so it could reach what the host reaches; an nftables table drops its
 * packets to the host's own addresses and to private, link-local and loopback ranges (cloud metadata at
 * 169.254.169.254 among them), letting through only DNS to the host's resolvers. pasta runs with a
 * group of its own (`sandgym-net`), which is what the rules match: its sockets carry that gid.
 */

/** The group whose sockets the firewall confines. */
export const NET_GROUP = 'sandgym-net';
const TABLE = 'sandgym_net';

const PRIVATE_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/3',
];
const PRIVATE_V6 = ['::/127', '::ffff:0:0/96', '64:ff9b::/96', 'fc00::/7', 'fe80::/10', 'ff00::/8'];

/** The `nameserver` addresses of a resolv.conf, and its `search` and `options` lines. */
export function parseResolvConf(text: string): { nameservers: string[]; other: string[] } {
  const nameservers: string[] = [];
  const other: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*/, '').trim();
    const [key, value] = line.split(/\s+/, 2);
    if (key === 'nameserver' && value && (isIPv4(value) || isIPv6(value.replace(/%.*/, ''))))
      nameservers.push(value);
    else if (key === 'search' || key === 'options') other.push(line);
  }
  return { nameservers, other };
}

const isLoopback = (ip: string) => ip.startsWith('127.') || ip === '::1';

/**
 * The resolvers a sandbox uses: the host's, except loopback ones (in the sandbox, loopback is its own);
 * behind systemd-resolved's 127.0.0.53, the upstream servers it lists.
 */
export function sandboxResolvers(read: (path: string) => string | undefined): {
  nameservers: string[];
  other: string[];
} {
  const host = parseResolvConf(read('/etc/resolv.conf') ?? '');
  const usable = host.nameservers.filter((ip) => !isLoopback(ip));
  if (usable.length > 0) return { nameservers: usable, other: host.other };
  const upstream = parseResolvConf(read('/run/systemd/resolve/resolv.conf') ?? '');
  return { nameservers: upstream.nameservers.filter((ip) => !isLoopback(ip)), other: host.other };
}

/** The nftables script that (re)creates the table confining `gid`'s sockets; atomic as one transaction. */
export function firewallRules(gid: number, resolvers: readonly string[]): string {
  const v4 = resolvers.filter((ip) => isIPv4(ip));
  const v6 = resolvers.filter((ip) => !isIPv4(ip)).map((ip) => ip.replace(/%.*/, ''));
  const dns = (family: 'ip' | 'ip6', ips: string[]) =>
    ips.length
      ? [`    ${family} daddr { ${ips.join(', ')} } meta l4proto { tcp, udp } th dport 53 accept`]
      : [];
  return [
    `table inet ${TABLE}`,
    `delete table inet ${TABLE}`,
    `table inet ${TABLE} {`,
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    // A positive match: `meta skgid != gid accept` would not match packets that have no socket (the
    // kernel's RST for a closed port), and the drops below would then break ECONNREFUSED host-wide.
    `    meta skgid ${gid} jump confined`,
    '  }',
    '  chain confined {',
    // Any address of this host (its LAN address, docker0, loopback), whatever its range.
    '    fib daddr type { local, broadcast, multicast, anycast } drop',
    ...dns('ip', v4),
    ...dns('ip6', v6),
    `    ip daddr { ${PRIVATE_V4.join(', ')} } drop`,
    `    ip6 daddr { ${PRIVATE_V6.join(', ')} } drop`,
    '  }',
    '}',
    '',
  ].join('\n');
}

export interface HostNetwork {
  pasta: string;
  nft: string;
  gid: number;
  /** The resolvers sandboxes use; DNS to them passes the firewall. */
  nameservers: string[];
  /** The resolv.conf bound into sandboxes with network. */
  resolvConf: string;
}

/**
 * (Re)installs the firewall table. Run before each sandbox gets its network, not once: a table flushed
 * since (`nft flush ruleset` by another tool) would otherwise leave pasta unconfined without a word.
 */
export async function installFirewall(net: HostNetwork): Promise<void> {
  await runHostCommand(net.nft, ['-f', '-'], {
    stdin: Readable.from([firewallRules(net.gid, net.nameservers)]),
  }).catch((e) => {
    throw new SandboxError(
      undefined,
      `could not install the sandbox firewall (nft): ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  });
}

function groupId(name: string): number | undefined {
  const line = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line ? Number(line.split(':')[2]) : undefined;
}

function findTool(name: string, pkg: string): string {
  for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']) {
    try {
      accessSync(join(dir, name), constants.X_OK);
    } catch {
      continue;
    }
    return join(dir, name);
  }
  throw new SandboxError(
    undefined,
    `sandboxes with network access need ${name}; install it (apt-get install ${pkg}) or run scripts/setup.sh`,
  );
}

/**
 * Readies the host for sandboxes with network access (once per provider; cheap to repeat): the
 * `sandgym-net` group, the tools and the sandboxes' resolv.conf in `runDir`, which bwrap
 * (running as the sandbox's unprivileged uid) can read, unlike sandgym's home under ~root.
 */
export async function prepareHostNetwork(runDir = '/run/sandgym'): Promise<HostNetwork> {
  const pasta = findTool('pasta', 'passt');
  const nft = findTool('nft', 'nftables');
  let gid = groupId(NET_GROUP);
  if (gid === undefined) {
    // Another process may add it at the same moment; then ours fails and theirs counts.
    await runHostCommand('groupadd', ['--system', NET_GROUP]).catch(() => {});
    gid = groupId(NET_GROUP);
    if (gid === undefined) throw new SandboxError(undefined, `could not create the group ${NET_GROUP}`);
  }
  const resolvers = sandboxResolvers((path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  });
  if (resolvers.nameservers.length === 0)
    throw new SandboxError(
      undefined,
      'sandboxes with network access need a DNS resolver that is not on the host loopback; /etc/resolv.conf lists none',
    );
  const dir = join(runDir, 'net');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const resolvConf = join(dir, 'resolv.conf');
  const text = [...resolvers.nameservers.map((ip) => `nameserver ${ip}`), ...resolvers.other, ''].join('\n');
  if ((await readFile(resolvConf, 'utf8').catch(() => '')) !== text) {
    const tmp = `${resolvConf}.${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, text, { mode: 0o644 });
    await rename(tmp, resolvConf);
  }
  return { pasta, nft, gid, nameservers: resolvers.nameservers, resolvConf };
}

/** pasta's options: no port forwarded either way, no route to the host's loopback through the gateway. */
export function pastaArgs(net: HostNetwork, pidFile: string): string[] {
  return [
    net.pasta,
    '--quiet',
    '--config-net',
    ...['-t', 'none', '-u', 'none', '-T', 'none', '-U', 'none'],
    '--no-map-gw',
    // uid 0 to join the sandbox's user namespace (pasta then holds capabilities only there); the group is
    // what the firewall matches.
    '--runas',
    `0:${net.gid}`,
    '--pid',
    pidFile,
    // The sandbox's namespaces, which sandgym-helper net opens for pasta as fds 3 and 4 (see net.c).
    '--userns',
    '/proc/self/fd/3',
    '--netns',
    '/proc/self/fd/4',
    // pasta's watch for a deleted namespace file; sandgym-helper net ends it with the sandbox instead.
    '--no-netns-quit',
  ];
}

/**
 * Attaches pasta to a started sandbox, through `sandgym-helper net`, which returns once the sandbox's
 * interface is configured and stays behind to kill pasta when the sandbox's pid 1 exits (pasta alone
 * would outlive it). Returns pasta's pid, for close() and gc.
 */
export async function connectSandbox(
  net: HostNetwork,
  spawn: SpawnHost,
  helper: string,
  id: string,
  dir: string,
  initPid: number,
  timeoutMs = 60_000,
): Promise<{ pid: number; startTicks: number }> {
  await installFirewall(net);
  const args = ['net', String(initPid), '--', ...pastaArgs(net, join(dir, 'pasta.pid'))];
  const child = await spawn(helper, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    detached: true,
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (err.length < 4096) err += b.toString();
  });
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for pasta')), timeoutMs);
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /^(\d+)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${signal ?? code}`));
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const startTicks = processStartTicks(pid);
    if (startTicks === undefined) throw new Error('pasta exited right after start');
    child.unref();
    (child.stdout as Socket).unref();
    (child.stderr as Socket).unref();
    return { pid, startTicks };
  } catch (e) {
    child.kill('SIGKILL');
    const detail = err.trim() || (e as Error).message;
    throw new SandboxError(id, `could not connect the sandbox's network (pasta): ${detail}`, {
      cause: e,
      isRetryable: true,
    });
  }
}
