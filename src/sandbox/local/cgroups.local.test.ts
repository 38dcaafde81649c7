import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEFAULT_LIMITS } from '../types.ts';
import { cgroupPids } from './cgroup-fs.ts';
import { CgroupV1Driver } from './cgroups-v1.ts';
import { CgroupV2Driver } from './cgroups-v2.ts';
import type { LimitDriver } from './limit-driver.ts';
import { entryScript } from './limit-entry.ts';
import { RlimitDriver } from './rlimits.ts';

const isRoot = process.getuid?.() === 0;
const parent = `sandgym-test-${randomBytes(3).toString('hex')}`;
const v1 = isRoot ? CgroupV1Driver.detect('/sys/fs/cgroup', parent) : undefined;
// On a hybrid host the v2 hierarchy has no controllers, but freezing, killing and tracking still work.
const v2root = existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/unified';
const v2 = isRoot ? CgroupV2Driver.detect(v2root, parent) : undefined;

/** A host shell in the exec group that starts a tree, including a setsid child, and reports its pids. */
async function startTree(driver: LimitDriver, id: string): Promise<{ done: Promise<unknown> }> {
  const handle = driver.sandbox(id);
  handle.apply({ ...DEFAULT_LIMITS, pids: 64 });
  const group = handle.execGroup('x1');
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `${entryScript(group.entry())} || exit 1; sleep 1000 & setsid sleep 1001 & (sleep 1002 &); echo ready; wait`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  group.attach(child.pid!);
  await new Promise((r) => child.stdout.once('data', r));
  return { done: new Promise((r) => child.once('exit', r)) };
}

/** A host shell in the exec group that counts up in `file` every 20 ms. */
async function startTicker(
  driver: LimitDriver,
  id: string,
  file: string,
): Promise<{ done: Promise<unknown> }> {
  const handle = driver.sandbox(id);
  handle.apply({ ...DEFAULT_LIMITS, pids: 64 });
  const group = handle.execGroup('x1');
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `${entryScript(group.entry())} || exit 1; i=0; echo ready; while :; do i=$((i+1)); echo $i > ${file}; sleep 0.02; done`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  group.attach(child.pid!);
  await new Promise((r) => child.stdout.once('data', r));
  const end = Date.now() + 20_000;
  while (!existsSync(file) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return { done: new Promise((r) => child.once('exit', r)) };
}

/** A process that exists and is not a zombie waiting for its parent to reap it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

for (const [name, driver] of [
  ['cgroup v1', v1],
  ['cgroup v2', v2],
] as const) {
  describe(name, { skip: driver ? false : `needs root and a writable ${name} hierarchy` }, () => {
    after(() => {
      for (const id of driver!.listSandboxIds()) driver!.removeIfEmpty(id);
      for (const dir of driver!.cgroupDirs('none')) rmdirSync(dirname(dir));
    });

    it('kills an exec tree, setsid children included, and removes the cgroups', async () => {
      const d = driver!;
      const tree = await startTree(d, 'a1');
      const members = d.cgroupDirs('a1').flatMap((dir) => cgroupPids(dir));
      assert.ok(members.length >= 4, `tracked ${members.length} processes`);
      await d.sandbox('a1').destroy();
      await tree.done;
      assert.ok(
        members.every((pid) => !alive(pid)),
        'no process of the tree survives',
      );
      assert.deepEqual(
        d.cgroupDirs('a1').filter((dir) => existsSync(dir)),
        [],
      );
    });

    it('freezes a sandbox (its processes stop) and thaws it (they run again)', async () => {
      const d = driver!;
      const counter = join(mkdtempSync(join(tmpdir(), 'sg-freeze-')), 'n');
      const tree = await startTicker(d, 'a2', counter);
      const handle = d.sandbox('a2');
      const read = () => Number(readFileSync(counter, 'utf8').trim() || -1);
      await handle.freeze();
      const frozenAt = read();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(read(), frozenAt, 'no tick while frozen');
      await handle.thaw();
      const end = Date.now() + 20_000;
      while (read() <= frozenAt && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      assert.ok(read() > frozenAt, 'ticking again after the thaw');
      await handle.destroy();
      await tree.done;
    });

    it('lists sandbox ids and removes only empty strays', async () => {
      const d = driver!;
      const tree = await startTree(d, 'a3');
      assert.ok(d.listSandboxIds().includes('a3'));
      assert.equal(d.removeIfEmpty('a3'), false, 'a busy cgroup stays');
      await d.sandbox('a3').destroy();
      await tree.done;
      assert.ok(!d.listSandboxIds().includes('a3'));
    });
  });
}

describe('rlimits', () => {
  it('kills an exec tree by process group', async () => {
    const d = new RlimitDriver();
    const handle = d.sandbox();
    handle.apply(DEFAULT_LIMITS);
    assert.match(entryScript(handle.entry()), /^ulimit -v \d+ && ulimit -f \d+$/);
    const group = handle.execGroup('x1');
    const child = spawn(
      '/bin/sh',
      ['-c', `${entryScript(group.entry())} || exit 1; sleep 1000 & echo ready; wait`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      },
    );
    group.attach(child.pid!);
    await new Promise((r) => child.stdout.once('data', r));
    await group.kill();
    const exit = await new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
    assert.equal(exit, 'SIGKILL');
  });
});
