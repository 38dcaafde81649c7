import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firewallRules, parseResolvConf, pastaArgs, sandboxResolvers } from './network.ts';

describe('sandbox network host side', () => {
  it('parses nameservers, search and options of a resolv.conf, skipping comments and junk', () => {
    const text =
      '# generated\nnameserver 10.0.0.53\nnameserver fe80::1%eth0\nnameserver bogus\nsearch corp\noptions ndots:2 ; x\n';
    assert.deepEqual(parseResolvConf(text), {
      nameservers: ['10.0.0.53', 'fe80::1%eth0'],
      other: ['search corp', 'options ndots:2'],
    });
  });

  it('gives sandboxes the host resolvers minus loopback ones; behind systemd-resolved, its upstreams', () => {
    const files: Record<string, string> = {
      '/etc/resolv.conf': 'nameserver 127.0.0.53\noptions edns0\n',
      '/run/systemd/resolve/resolv.conf': 'nameserver 192.168.1.1\nnameserver ::1\n',
    };
    assert.deepEqual(
      sandboxResolvers((p) => files[p]),
      { nameservers: ['192.168.1.1'], other: ['options edns0'] },
    );
    files['/etc/resolv.conf'] = 'nameserver 127.0.0.1\nnameserver 8.8.8.8\n';
    assert.deepEqual(sandboxResolvers((p) => files[p]).nameservers, ['8.8.8.8']);
    assert.deepEqual(sandboxResolvers(() => undefined).nameservers, []);
  });

  it("confines only the network group's sockets: host addresses and private ranges dropped, DNS to the resolvers let through first", () => {
    const rules = firewallRules(995, ['10.255.255.53', 'fd00::53%eth0']);
    const lines = rules.split('\n').map((l) => l.trim());
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    // Replaces the whole table in one transaction, so a rerun never leaves a window without it.
    assert.match(rules, /^table inet sandgym_net\ndelete table inet sandgym_net\ntable inet sandgym_net \{/);
    assert.equal(at(/^meta skgid 995 jump confined$/), 5, "only the group's sockets enter the drops");
    assert.equal(at(/^chain confined \{$/), 7);
    assert.ok(!rules.includes('!='), 'packets with no socket (RSTs of closed ports) are never dropped');
    const local = at(/^fib daddr type .*local.* drop$/);
    const dns4 = at(/^ip daddr \{ 10\.255\.255\.53 \} meta l4proto \{ tcp, udp \} th dport 53 accept$/);
    const dns6 = at(/^ip6 daddr \{ fd00::53 \} .* dport 53 accept$/);
    const private4 = at(
      /^ip daddr \{.*10\.0\.0\.0\/8.*127\.0\.0\.0\/8.*169\.254\.0\.0\/16.*172\.16\.0\.0\/12.*192\.168\.0\.0\/16.* \} drop$/,
    );
    const private6 = at(/^ip6 daddr \{.*fc00::\/7, fe80::\/10.* \} drop$/);
    assert.ok(local > 5 && local < dns4, 'a resolver on the host itself stays unreachable');
    assert.ok(
      dns4 < private4 && dns6 < private6,
      'DNS to the resolvers passes before the private ranges drop',
    );
    assert.match(lines[private4]!, /100\.64\.0\.0\/10/);
  });

  it('runs pasta with no forwarded ports, no gateway mapped to the host and the firewalled group', () => {
    const args = pastaArgs(
      { pasta: '/usr/bin/pasta', nft: '/usr/sbin/nft', gid: 995, nameservers: [], resolvConf: '/r' },
      '/d/pasta.pid',
    );
    assert.equal(args[0], '/usr/bin/pasta');
    const joined = args.join(' ');
    for (const flag of [
      '-t none',
      '-u none',
      '-T none',
      '-U none',
      '--no-map-gw',
      '--runas 0:995',
      '--pid /d/pasta.pid',
    ])
      assert.ok(joined.includes(flag), flag);
    assert.ok(
      joined.includes('--userns /proc/self/fd/3 --netns /proc/self/fd/4'),
      'the namespaces net.c opens',
    );
  });
});
