import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolveHome } from '../images/home.ts';
import { processStartTicks } from '../owner.ts';
import { cgroupParent, chooseLimitDriver } from './limit-drivers.ts';
import { readMeta, type SandboxMeta } from './sandbox-meta.ts';
import { localTestSkipReason } from './test-support.ts';

const skip = await localTestSkipReason();
const root = new URL('../../../', import.meta.url).pathname;

function run(args: string[], stdin: 'ignore' | 'pipe' = 'ignore') {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    stdio: [stdin, 'pipe', 'inherit'],
  });
}

/** A killed process the host's init has not reaped yet (a zombie) holds nothing: it counts as gone. */
function processExists(p: { pid: number; startTicks: number } | undefined): boolean {
  return p !== undefined && processStartTicks(p.pid) === p.startTicks;
}

/** Files backing the host's loop devices (each sandbox's disk image has one while it runs). */
function loopBackingFiles(): string[] {
  return readdirSync('/sys/block')
    .filter((d) => d.startsWith('loop'))
    .flatMap((d) => {
      try {
        return [readFileSync(`/sys/block/${d}/loop/backing_file`, 'utf8').trim()];
      } catch {
        return [];
      }
    });
}

describe('nothing leaks', { skip: skip ?? false, timeout: 180_000 }, () => {
  it('after kill -9 of a process holding 20 sandboxes (2 with network), `sandgym gc` leaves no mount, process (pasta included), cgroup, dir or loop device', async () => {
    const holder = run(['src/sandbox/local/testing/hold-sandboxes.ts', '20', '2']);
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      holder.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      holder.once('exit', (code) => reject(new Error(`holder exited with ${code} before reporting`)));
    });
    const ids = JSON.parse(line) as string[];
    assert.equal(ids.length, 20);
    const sandboxesDir = join(resolveHome(), 'sandboxes');
    const metas = (await Promise.all(ids.map((id) => readMeta(join(sandboxesDir, id))))) as SandboxMeta[];
    assert.ok(
      metas.every((m) => m && processExists(m.init)),
      'all 20 sandboxes run',
    );
    assert.equal(metas.filter((m) => processExists(m.pasta)).length, 2, 'two have pasta running');

    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    // The sandboxes die with their owner, before any gc: its fork server dies with it, each sandbox's
    // holder with the fork server, bwrap and pid 1 with their holder.
    const deadline = Date.now() + 30_000;
    const alive = (m: SandboxMeta) =>
      processExists(m.init) || processExists(m.holder) || processExists(m.pasta);
    while (metas.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!metas.some(alive), 'every sandbox (and its pasta) died with its owner');

    const gc = run(['bin/sandgym.js', 'gc', '--provider', 'local']);
    let report = '';
    gc.stdout!.on('data', (b: Buffer) => {
      report += b.toString();
    });
    const code = await new Promise((r) => gc.once('exit', r));
    assert.equal(code, 0, report);
    // No check that the report names every id: a concurrent test's run starts with gc too and may reap a
    // dead owner's sandbox first. What counts is that nothing is left.

    const driver = chooseLimitDriver('auto', cgroupParent(resolveHome()));
    for (const m of metas) {
      assert.equal(processExists(m.init), false, `pid 1 of ${m.id} is gone`);
      assert.equal(processExists(m.holder), false, `holder of ${m.id} is gone`);
      assert.equal(existsSync(join(sandboxesDir, m.id)), false, `dir of ${m.id} is gone`);
      assert.deepEqual(
        driver.cgroupDirs(m.id).filter((d) => existsSync(d)),
        [],
        `cgroups of ${m.id} are gone`,
      );
    }
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    assert.ok(!mounts.includes(sandboxesDir), 'no sandbox mount is visible on the host');
    // A loop device detaches once its mount namespace is torn down, which the kernel may finish a moment
    // after the last process exits.
    const dirs = metas.map((m) => join(sandboxesDir, m.id));
    const loopDeadline = Date.now() + 20_000;
    while (loopBackingFiles().some((f) => dirs.some((d) => f.startsWith(d))) && Date.now() < loopDeadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      loopBackingFiles().filter((f) => dirs.some((d) => f.startsWith(d))),
      [],
      'no loop device is left',
    );
  });
});
