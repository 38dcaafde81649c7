import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isConfigError, isSandboxError } from '../../errors.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { readMeta, writeMeta } from './sandbox-meta.ts';
import { localTestSkipReason, removeTestImage } from './test-support.ts';

const skip = await localTestSkipReason();
const MiB = 1024 * 1024;

/** Whether `pid` runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('local provider', { skip: skip ?? false, timeout: 300_000 }, () => {
  let provider: LocalProvider;
  before(async () => {
    provider = await createLocal();
  });
  after(() => provider.close());

  it('records owner, limits and how they are enforced in meta.json, and removes it all on close', async () => {
    const s = await provider.create({ image: 'sandgym/base', limits: { memoryBytes: 256 * MiB, pids: 100 } });
    const meta = (await readMeta(s.dir))!;
    assert.equal(meta.id, s.id);
    assert.equal(meta.run, s.labels['sandgym.run']);
    assert.equal(meta.limits.memoryBytes, 256 * MiB);
    assert.equal(meta.limitMechanism, provider.limitDriver.mechanism);
    const cgroups = provider.limitDriver.cgroupDirs(s.id);
    if (meta.limitMechanism === 'cgroup-v1') {
      assert.deepEqual(meta.limitsEnforced, ['memory', 'pids', 'cpu', 'freezer']);
      const memory = cgroups.find((d) => d.includes('/memory/'))!;
      assert.equal(readFileSync(join(memory, 'memory.limit_in_bytes'), 'utf8').trim(), String(256 * MiB));
      const inside = await s.exec('cat /proc/self/cgroup');
      assert.equal(inside.exitCode, 0);
    }
    assert.ok(meta.init && meta.holder);
    await s.close();
    assert.equal(running(meta.init!.pid), false, 'pid 1 is gone when close() returns');
    await provider.released();
    assert.equal(existsSync(s.dir), false, 'sandbox dir removed');
    assert.deepEqual(
      cgroups.filter((d) => existsSync(d)),
      [],
      'cgroups removed',
    );
    assert.equal(running(meta.init!.pid), false, 'pid 1 is gone');
  });

  it('fails the next call of a sandbox killed from outside with a SandboxError saying it died', async () => {
    const s = await provider.create({ image: 'sandgym/base' });
    process.kill(s.initPid, 'SIGKILL');
    // A SIGKILL lands when its target next runs: on a loaded host an exec could still slip in before.
    while (running(s.initPid)) await new Promise((r) => setTimeout(r, 5));
    await assert.rejects(
      s.exec('true'),
      (e: unknown) => isSandboxError(e) && /died/.test(e.message) && e.isRetryable,
    );
    await s.close();
  });

  it('a sandbox ends itself at its TTL', async () => {
    const s = await provider.create({ image: 'sandgym/base', ttlMs: 50 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.closed, true);
    await s.close();
    await provider.released();
    assert.equal(existsSync(s.dir), false);
  });

  it('gc removes a sandbox past its TTL and keeps the live ones', async () => {
    const stale = await provider.create({ image: 'sandgym/base', ttlMs: 60_000 });
    const live = await provider.create({ image: 'sandgym/base' });
    // As if its owner had stopped looking after it an hour ago.
    const meta = (await readMeta(stale.dir))!;
    writeMeta(stale.dir, { ...meta, createdAtMs: meta.createdAtMs - 3_600_000 });
    const report = await provider.gc();
    assert.ok(report.removed.includes(stale.id));
    assert.ok(!report.removed.includes(live.id));
    assert.equal(stale.closed, true);
    assert.equal((await live.exec('echo alive')).stdout, 'alive\n');
    await live.close();
  });

  it('gc --all of another sandgym home on the same host never harms a live sandbox or its exec cgroups', async () => {
    const otherHome = await mkdtemp(join(tmpdir(), 'sg-other-home-'));
    const other = await createLocal({ home: otherHome });
    const live = await provider.create({ image: 'sandgym/base' });
    try {
      assert.ok(
        !other.limitDriver.listSandboxIds().includes(live.id),
        "the other home's gc does not even list this home's cgroups",
      );
      let stop = false;
      const sweeping = (async () => {
        while (!stop) await other.gc({ all: true });
      })();
      const results = [];
      for (let i = 0; i < 40; i++) results.push(await live.exec('echo alive'));
      stop = true;
      await sweeping;
      assert.deepEqual(
        results.filter((r) => r.exitCode !== 0 || r.stdout !== 'alive\n'),
        [],
        'every exec ran while the other home collected garbage',
      );
      assert.ok(provider.limitDriver.cgroupDirs(live.id).every((d) => existsSync(d)));
    } finally {
      await live.close();
      await other.close();
      await rm(otherHome, { recursive: true, force: true });
    }
  });

  it('refuses new sandboxes once closed, and closes all it made', async () => {
    const own = await createLocal();
    const a = await own.create({ image: 'sandgym/base' });
    const b = await own.create({ image: 'sandgym/base' });
    await own.close();
    assert.equal(a.closed && b.closed, true);
    await assert.rejects(
      own.create({ image: 'sandgym/base' }),
      (e: unknown) => isSandboxError(e) && /closed/.test(e.message),
    );
  });

  it('stacks snapshots of snapshots and forks of forks, deletions included', async () => {
    const s = await provider.create({ image: 'sandgym/base' });
    // Hard links and owners other than root cross fork and snapshot (their host owners are shifted
    // between the sandboxes' id ranges, each inode once).
    await s.exec(
      'echo a > /a && mkdir -p /d && echo x > /d/x && rm /etc/issue && ' +
        'echo h > /h1 && ln /h1 /h2 && chown 1000:1001 /h1',
    );
    await s.snapshot('sandgym-test/local-stack:1');
    const t = await provider.create({ image: 'sandgym-test/local-stack:1' });
    await t.exec('rm /a && rm -r /d && mkdir /d && echo y > /d/y && echo b > /b');
    await t.snapshot('sandgym-test/local-stack:2');
    const u = await provider.create({ image: 'sandgym-test/local-stack:2' });
    const [f] = await u.fork(1);
    const [g] = await f!.fork(1);
    for (const box of [u, f!, g!]) {
      const r = await box.exec('ls /a /etc/issue 2>&1; ls /d; cat /b');
      assert.match(r.stdout, /\/a.*No such file/);
      assert.match(r.stdout, /\/etc\/issue.*No such file/);
      assert.match(r.stdout, /^y\nb\n$/m, 'the re-created directory is opaque: /d/x stays deleted');
      const links = await box.exec('stat -c "%h %u %g %i" /h1 /h2');
      const [one, two] = links.stdout.trim().split('\n');
      assert.equal(one, two, 'one inode, two names');
      assert.match(one!, /^2 1000 1001 /);
    }
    const image = (await provider.store.get('sandgym-test/local-stack:2'))!;
    assert.equal(image.layers.length, 3);
    await Promise.all([s, t, u, f!, g!].map((b) => b.close()));
    await removeTestImage(provider.store, 'sandgym-test/local-stack:2');
    await removeTestImage(provider.store, 'sandgym-test/local-stack:1');
  });

  it('snapshot of a setuid-root shell and a disk device node stores neither on the host, in a 0700 layer', async () => {
    const s = await provider.create({ image: 'sandgym/base' });
    const r = await s.exec(
      'cp /bin/sh /opt/rootshell && chmod 6755 /opt/rootshell && mkdir -m 777 /opt/open && ' +
        '(mknod /opt/sda b 8 0 || true) && (mknod /opt/mem c 1 1 || true) && rm /etc/issue',
    );
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(statSync(s.dir).mode & 0o777, 0o700, "the sandbox's directory (its disk image) too");
    await s.snapshot('sandgym-test/local-setuid:1');
    const [key] = (await provider.store.get('sandgym-test/local-setuid:1'))!.layers;
    const layer = join(provider.store.layersDir, key!);
    assert.equal(statSync(layer).mode & 0o777, 0o700, 'no other host user can reach the layer');
    const rootfs = provider.store.layerRootfs(key!);
    assert.equal(statSync(join(rootfs, 'opt/rootshell')).mode & 0o7777, 0o755, 'setuid/setgid stripped');
    assert.equal(existsSync(join(rootfs, 'opt/sda')), false, 'block device removed');
    assert.equal(existsSync(join(rootfs, 'opt/mem')), false, 'character device removed');
    assert.ok(lstatSync(join(rootfs, 'etc/issue')).isCharacterDevice(), 'the whiteout of a deletion stays');
    const t = await provider.create({ image: 'sandgym-test/local-setuid:1' });
    const seen = await t.exec('stat -c %a /opt/rootshell; test -e /etc/issue || echo deleted');
    assert.equal(seen.stdout, '755\ndeleted\n');
    await Promise.all([s.close(), t.close()]);
    await removeTestImage(provider.store, 'sandgym-test/local-setuid:1');
  });

  it('after a fork bomb left in the background, and after a memory kill, the next exec works', async () => {
    const s = await provider.create({ image: 'sandgym/base', limits: { pids: 64, memoryBytes: 256 * MiB } });
    const bomb = 'import os\nwhile True:\n  try: os.fork()\n  except OSError: pass';
    // The exec returns at once; the bomb (setsid, in the background) fills the process limit and stays.
    const started = await s.exec([
      'sh',
      '-c',
      'setsid python3 -c "$1" >/dev/null 2>&1 & echo started',
      'sh',
      bomb,
    ]);
    assert.equal(started.stdout, 'started\n');
    await new Promise((r) => setTimeout(r, 2000));
    for (let i = 0; i < 3; i++) {
      const r = await s.exec('echo ok', { timeoutMs: 60_000 });
      assert.deepEqual([r.exitCode, r.stdout], [0, 'ok\n'], r.stderr);
    }
    const hog = await s.exec(['python3', '-c', 'x = bytearray(1024 ** 3)']);
    assert.equal(hog.exitCode, 137, 'the memory hog is killed');
    const r = await s.exec('echo ok; ps -e | wc -l');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^ok\n/);
    await s.close();
  });

  it('resolves relative paths and cwd against the workdir', async () => {
    const s = await provider.create({ image: 'sandgym/base', workdir: '/srv' });
    await s.writeFile('app/main.py', 'print("hi")\n');
    assert.equal((await s.exec(['python3', 'main.py'], { cwd: 'app' })).stdout, 'hi\n');
    assert.equal((await s.readFile('/srv/app/main.py')).toString(), 'print("hi")\n');
    await assert.rejects(s.readFile(''), (e: unknown) => isConfigError(e));
    await s.close();
  });

  it('refuses a hostile archive on download: nothing lands outside the target directory', async () => {
    const s = await provider.create({ image: 'sandgym/base' });
    const outside = await mkdtemp(join(tmpdir(), 'sg-outside-'));
    const target = await mkdtemp(join(tmpdir(), 'sg-target-'));
    try {
      const evil = [
        'import io, tarfile, sys',
        't = tarfile.open("/tmp/evil.tar", "w")',
        'i = tarfile.TarInfo("link"); i.type = tarfile.SYMTYPE; i.linkname = sys.argv[1]; t.addfile(i)',
        'd = b"pwned"; i = tarfile.TarInfo("link/pwned"); i.size = len(d); t.addfile(i, io.BytesIO(d))',
        'i = tarfile.TarInfo("../escape"); i.size = len(d); t.addfile(i, io.BytesIO(d))',
        't.close()',
      ].join('\n');
      assert.equal((await s.exec(['python3', '-c', evil, outside])).exitCode, 0);
      // The agent controls the sandbox: it can replace the tar that downloadDir runs inside.
      await s.writeFile('/usr/local/bin/tar', '#!/bin/sh\ncat /tmp/evil.tar\n', { mode: 0o755 });
      await assert.rejects(s.downloadDir('/tmp', target), (e: unknown) => isSandboxError(e));
      assert.equal(existsSync(join(outside, 'pwned')), false);
      assert.equal(existsSync(join(target, '..', 'escape')), false);
    } finally {
      await s.close();
      await rm(outside, { recursive: true, force: true });
      await rm(target, { recursive: true, force: true });
    }
  });

  it('rejects unknown provider options and bad values', async () => {
    await assert.rejects(createLocal({ options: { limit: 'rlimit' } }), (e: unknown) => isConfigError(e));
    await assert.rejects(createLocal({ options: { limits: 'cgroup-v3' } }), (e: unknown) => isConfigError(e));
    await assert.rejects(provider.create({ image: 'sandgym/base', ttlMs: 0 }), (e: unknown) =>
      isConfigError(e),
    );
    await assert.rejects(provider.create({ image: 'sandgym/base', workdir: 'rel' }), (e: unknown) =>
      isConfigError(e),
    );
    await assert.rejects(provider.create({ image: 'Bad Name' }), (e: unknown) => isConfigError(e));
  });
});

describe('local provider with rlimits only', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('runs commands, records the weaker mechanism and kills timed-out process groups', async () => {
    const provider = await createLocal({ options: { limits: 'rlimit' } });
    try {
      const s = await provider.create({ image: 'sandgym/base' });
      assert.equal((await readMeta(s.dir))!.limitMechanism, 'rlimit');
      assert.equal((await s.exec(['python3', '-c', 'print(1)'])).stdout, '1\n');
      const r = await s.exec('sleep 1000 & sleep 1001', { timeoutMs: 300 });
      assert.equal(r.timedOut, true);
      const left = await s.exec('ps -eo args | grep -c "^sleep 100"');
      assert.equal(left.stdout.trim(), '0');
    } finally {
      await provider.close();
    }
  });
});
