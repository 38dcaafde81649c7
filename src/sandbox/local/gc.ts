import { isOrphan, processStartTicks, runLiveness } from '../owner.ts';
import type { GcOptions, GcReport } from '../types.ts';
import type { LocalProvider } from './local-provider.ts';
import { ageMs, layersInUse, listSandboxDirs, removeSandboxDir } from './sandbox-dirs.ts';
import type { SandboxMeta } from './sandbox-meta.ts';

/** A directory without meta.json younger than this may be a sandbox being created right now. */
const UNBORN_GRACE_MS = 60_000;

function killIfSame(proc: { pid: number; startTicks: number } | undefined): void {
  if (proc && processStartTicks(proc.pid) === proc.startTicks) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {}
  }
}

/** SIGKILL is delivered asynchronously: wait (briefly) until the processes are really gone. */
async function waitGone(
  procs: ({ pid: number; startTicks: number } | undefined)[],
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (procs.some((p) => p && processStartTicks(p.pid) === p.startTicks) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function destroyByMeta(
  provider: LocalProvider,
  dir: string,
  meta: SandboxMeta | undefined,
): Promise<void> {
  if (meta) {
    killIfSame(meta.init);
    killIfSame(meta.holder);
    killIfSame(meta.pasta);
    await waitGone([meta.init, meta.holder, meta.pasta]);
    // The limit driver of the sandbox's creator, when it differs from ours, left nothing we can reach.
    if (meta.limitMechanism === provider.limitDriver.mechanism)
      await provider.limitDriver.sandbox(meta.id).destroy();
  }
  await removeSandboxDir(dir);
}

/**
 * Removes local sandboxes whose owner run is dead or whose TTL passed (all of them with `all`): their
 * processes, cgroups and directories. Then sweeps what a crash can leave besides sandboxes: empty
 * sandgym cgroups, half-built layers of dead builders, and layers no image or sandbox uses.
 */
export async function gcLocal(provider: LocalProvider, options: GcOptions = {}): Promise<GcReport> {
  const removed: string[] = [];
  let kept = 0;
  const now = Date.now();
  for (const { dir, meta } of await listSandboxDirs(provider.sandboxesDir)) {
    const id = meta?.id ?? dir.slice(dir.lastIndexOf('/') + 1);
    const orphan = meta
      ? options.all || isOrphan({ run: meta.run, createdAtMs: meta.createdAtMs, ttlMs: meta.ttlMs }, now)
      : (await ageMs(dir, now)) > UNBORN_GRACE_MS;
    if (!orphan) {
      kept++;
      continue;
    }
    const mine = provider.sandboxes.find((s) => s.id === id);
    if (mine) await mine.close();
    else await destroyByMeta(provider, dir, meta);
    removed.push(id);
  }
  await removeStrayCgroups(provider, now);
  await provider.store.removeStaleTemps((run) => runLiveness(run) !== 'dead');
  await provider.store.pruneLayers(await layersInUse(provider.sandboxesDir));
  return { provider: 'local', removed, kept };
}

/**
 * A cgroup whose sandbox directory is gone. It may belong to a sandbox of another SANDGYM_HOME, so only
 * empty ones go (removing a cgroup with processes fails anyway), and only old ones: a sandbox being
 * created has its cgroup a moment before its processes.
 */
async function removeStrayCgroups(provider: LocalProvider, now: number): Promise<void> {
  const driver = provider.limitDriver;
  const known = new Set(
    (await listSandboxDirs(provider.sandboxesDir)).map((s) => s.dir.slice(s.dir.lastIndexOf('/') + 1)),
  );
  for (const id of driver.listSandboxIds()) {
    if (known.has(id)) continue;
    const dirs = driver.cgroupDirs(id);
    const ages = await Promise.all(dirs.map((d) => ageMs(d, now)));
    if (ages.some((a) => a < UNBORN_GRACE_MS)) continue;
    driver.removeIfEmpty(id);
  }
}
