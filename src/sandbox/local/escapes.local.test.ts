import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createLocal } from './index.ts';
import { DOCKER_CAPS } from './launch-init.ts';
import type { LocalProvider } from './local-provider.ts';
import type { LocalSandbox } from './local-sandbox.ts';
import { localTestSkipReason } from './test-support.ts';

/**
 * Attacks from inside a default local sandbox on the host and on other sandboxes (issue 12), each
 * asserting containment. They run against real sandboxes: sandgym-helper, bwrap, the kernel.
 */
const skip = await localTestSkipReason();

/** Docker's 14 default capabilities as the kernel prints them in /proc/PID/status. */
const CAP_NUMBERS: Record<(typeof DOCKER_CAPS)[number], number> = {
  CAP_CHOWN: 0,
  CAP_DAC_OVERRIDE: 1,
  CAP_FOWNER: 3,
  CAP_FSETID: 4,
  CAP_KILL: 5,
  CAP_SETGID: 6,
  CAP_SETUID: 7,
  CAP_SETPCAP: 8,
  CAP_NET_BIND_SERVICE: 10,
  CAP_NET_RAW: 13,
  CAP_SYS_CHROOT: 18,
  CAP_MKNOD: 27,
  CAP_AUDIT_WRITE: 29,
  CAP_SETFCAP: 31,
};
const DOCKER_CAP_MASK = DOCKER_CAPS.reduce((m, c) => m | (1n << BigInt(CAP_NUMBERS[c])), 0n)
  .toString(16)
  .padStart(16, '0');

async function sh(s: LocalSandbox, script: string, env?: Record<string, string>) {
  const r = await s.exec(['/bin/sh', '-c', script], { ...(env && { env }), timeoutMs: 60_000 });
  return { ...r, out: r.stdout.trim() };
}

describe('local sandbox escapes', { skip: skip ?? false, timeout: 300_000 }, () => {
  let provider: LocalProvider;
  let a: LocalSandbox;
  let b: LocalSandbox;
  before(async () => {
    provider = await createLocal();
    [a, b] = await Promise.all([
      provider.create({ image: 'sandgym/base' }),
      provider.create({ image: 'sandgym/base', network: true }),
    ]);
  });
  after(() => provider.close());

  it('uid_map: root inside is an unprivileged host uid range of its own, not "0 0 1"', async () => {
    for (const s of [a, b]) {
      const r = await sh(s, 'cat /proc/self/uid_map /proc/self/gid_map; id -u');
      const [uid, gid, id] = r.out.split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(uid, ['0', String(s.uidBase), '65536']);
      assert.deepEqual(gid, ['0', String(s.uidBase), '65536']);
      assert.deepEqual(id, ['0']);
      assert.ok(s.uidBase >= 2 ** 30, `uid base ${s.uidBase} is far above login and subordinate ids`);
    }
    const [lo, hi] = [a.uidBase, b.uidBase].sort((x, y) => x - y);
    assert.ok(hi! - lo! >= 65536, 'two live sandboxes never share a host id');
  });

  it('core_pattern: writing /proc/sys (the host-root escape) fails, and the host value is unchanged', async () => {
    const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    const r = await sh(a, "echo '|/proc/%P/root/tmp/h' > /proc/sys/kernel/core_pattern");
    assert.notEqual(r.exitCode, 0);
    const sysctl = await sh(a, 'echo 1 > /proc/sys/vm/drop_caches');
    assert.notEqual(sysctl.exitCode, 0);
    assert.equal(readFileSync('/proc/sys/kernel/core_pattern', 'utf8'), before);
  });

  it('remount: read-only binds stay read-only (remount rw, and via a nested user namespace)', async () => {
    for (const target of ['/proc/sys', '/etc/resolv.conf']) {
      const r = await sh(b, `mount -o remount,bind,rw ${target} && echo REMOUNTED`);
      assert.notEqual(r.exitCode, 0, `${target}: ${r.stdout}`);
      assert.doesNotMatch(r.stdout, /REMOUNTED/);
    }
    const nested = await sh(
      b,
      'unshare -Urm sh -c "mount -o remount,bind,rw /proc/sys && echo 1 > /proc/sys/kernel/core_pattern && echo ESCAPED"',
    );
    assert.doesNotMatch(nested.stdout, /ESCAPED/);
    // The host's resolv.conf, where a sandbox with network gets it bound read-only.
    const write = await sh(
      b,
      'grep -q " /etc/resolv.conf " /proc/self/mountinfo && echo x >> /etc/resolv.conf && echo WROTE',
    );
    assert.doesNotMatch(write.stdout, /WROTE/);
  });

  it("capabilities: Docker's 14 only, in exec and pid 1, with no_new_privs and no ambient set", async () => {
    const r = await sh(
      a,
      'grep -E "^(CapEff|CapPrm|CapBnd|CapAmb|CapInh|NoNewPrivs)" /proc/self/status /proc/1/status',
    );
    const field = (file: string, name: string) =>
      new RegExp(`^${file}:${name}:\\s*(\\S+)$`, 'm').exec(r.out)?.[1];
    for (const file of ['/proc/self/status', '/proc/1/status']) {
      for (const name of ['CapEff', 'CapPrm', 'CapBnd'])
        assert.equal(field(file, name), DOCKER_CAP_MASK, `${file} ${name}`);
      assert.equal(field(file, 'NoNewPrivs'), '1');
    }
    // bwrap gives pid 1 (catatonit, which runs nothing) its caps as ambient too; commands get none.
    assert.equal(field('/proc/self/status', 'CapAmb'), '0000000000000000');
    // Host root's files are out of reach even where the sandbox could name them: a mknod'd disk.
    const disk = await sh(a, 'mknod /tmp/sda b 8 0 && head -c 1 /tmp/sda && echo READ');
    assert.doesNotMatch(disk.stdout, /READ/);
  });

  it("/proc: kcore, keys, timer_list and Docker's other masked paths reveal nothing", async () => {
    const r = await sh(
      a,
      'for f in /proc/keys /proc/timer_list /proc/interrupts /proc/kcore /proc/sched_debug; do [ -e $f ] && head -c 64 $f 2>/dev/null; done; ls /proc/acpi 2>/dev/null; echo END',
    );
    assert.equal(r.out, 'END');
    const sysrq = await sh(a, '[ ! -e /proc/sysrq-trigger ] || ! echo h > /proc/sysrq-trigger');
    assert.equal(sysrq.exitCode, 0);
  });

  it("mountinfo: the sandbox's mounts do not show where sandgym keeps it on the host", async () => {
    const r = await sh(a, 'cat /proc/self/mountinfo');
    assert.equal(r.exitCode, 0);
    assert.ok(!r.stdout.includes(provider.config.home), r.stdout);
    assert.ok(!r.stdout.includes(a.id), r.stdout);
  });

  it("keyctl: a key added inside never shows in the host's /proc/keys", async () => {
    const name = `sandgym-escape-${randomBytes(6).toString('hex')}`;
    // add_key(2) on x86_64/aarch64 through libc, into the session keyring (-3) and the user keyring (-4).
    const script = `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 248, "aarch64": 217}[__import__("platform").machine()]
for ring in (-3, -4):
    r = libc.syscall(nr, b"user", sys.argv[1].encode(), b"secret", 6, ring)
    print(ring, r, ctypes.get_errno())`;
    const r = await a.exec(['python3', '-c', script, name]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(readFileSync('/proc/keys', 'utf8'), new RegExp(name));
  });

  it("exec helper: not dumpable, runs as the sandbox's uid, and holds no other sandbox's secrets", async () => {
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    // Sandbox B runs a command holding a secret; A, racing, stops and reads every process it can see.
    const victim = await b.spawn(['sleep', '30'], { env: { API_KEY: secret } });
    const hunter = `import os, signal, sys, time
secret = sys.argv[1].encode()
found = []
end = time.time() + 3
while time.time() < end:
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), signal.SIGSTOP)
        except OSError:
            pass
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if secret in f.read():
                    found.append(pid)
            maps = open(f"/proc/{pid}/maps").read().splitlines()
            with open(f"/proc/{pid}/mem", "rb") as mem:
                for line in maps:
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    if lo >= 1 << 63:
                        continue
                    try:
                        mem.seek(lo)
                        if secret in mem.read(min(hi - lo, 1 << 22)):
                            found.append(pid)
                    except OSError:
                        pass
        except OSError:
            pass
        finally:
            try:
                os.kill(int(pid), signal.SIGCONT)
            except OSError:
                pass
print("FOUND" if found else "CLEAN", found)`;
    const hunt = a.exec(['python3', '-c', hunter, secret], { timeoutMs: 60_000 });
    // Meanwhile the fork server reads more requests carrying B's secret and starts execs in A.
    for (let k = 0; k < 10; k++) {
      await b.exec(['true'], { env: { API_KEY: secret } });
      await a.exec(['true']);
    }
    const r = await hunt;
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^CLEAN/);

    // The host process that entered B: the sandbox's root uid, and not dumpable (its /proc files then
    // belong to host root rather than to it).
    const helper = await b.spawn(['sleep', '30']);
    const pid = (helper as unknown as { pid?: number }).pid;
    if (pid !== undefined) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      assert.match(status, new RegExp(`^Uid:\\s+${b.uidBase}\\s`, 'm'));
      assert.equal(statSync(`/proc/${pid}/mem`).uid, 0, 'not dumpable');
    }
    helper.kill();
    victim.kill();
    await Promise.all([helper.exited, victim.exited]);
  });

  it('ptrace/kill: host processes and the other sandbox are out of sight', async () => {
    // Host pids of sandgym, of B's pid 1 and of B's holder: none may be signalled, traced or read from A.
    const targets = [process.pid, b.initPid, b.holder.pid!];
    const script = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for pid in map(int, sys.argv[1:]):
    if os.path.exists(f"/proc/{pid}"):
        continue  # the same number in our own pid namespace: one of our processes, not the host's
    try:
        os.kill(pid, 0)
        print("SIGNALLED", pid)
    except ProcessLookupError:
        pass
    if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
        print("TRACED", pid)
print("DONE")`;
    const r = await a.exec(['python3', '-c', script, ...targets.map(String)]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'DONE');
  });

  it("ownership: files made inside, and by the file API, are owned by the sandbox's range on the host", async () => {
    await a.writeFile('/root/uploaded', 'data');
    const r = await sh(a, 'touch /made && chown 1000:1001 /made && echo ok');
    assert.equal(r.out, 'ok');
    assert.equal(statSync(`${a.upperPath}/root/uploaded`).uid, a.uidBase);
    const made = statSync(`${a.upperPath}/made`);
    assert.deepEqual([made.uid, made.gid], [a.uidBase + 1000, a.uidBase + 1001]);
  });

  it("root work inside still works: a package installed into the image's site-packages imports", async () => {
    const script = `set -e
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/sgpkg" && echo 'VALUE = 42' > "$site/sgpkg/__init__.py"
chown -R 1000:1000 "$site/sgpkg"
echo extra >> /etc/passwd.sg && cp /etc/passwd /etc/passwd.bak
cd / && python3 -c 'import sgpkg; print(sgpkg.VALUE)'
stat -c %u "$site/sgpkg/__init__.py"`;
    const r = await sh(a, script);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.out, '42\n1000');
  });
});
