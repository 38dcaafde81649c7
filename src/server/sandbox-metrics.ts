import type { Sandbox } from '../sandbox/index.ts';
import { HttpError } from './http-io.ts';

/**
 * GET /sandboxes/{id}/metrics: one sample of the sandbox now, measured from inside it (so on every
 * provider): CPU as the ticks its processes used over a 200 ms window against its CPU limit, memory as
 * its processes' resident memory (shared pages count once per process, so this errs high), disk as its
 * root filesystem's use (on local sandboxes the overlay's upper tmpfs, the disk limit). Totals are the
 * sandbox's limits. E2B answers a time series; this server keeps no history, so `start`/`end` get the
 * current sample.
 */
const PROBE = String.raw`
import os, time
def ticks():
    total = rss = 0
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
            rss += int(fields[21])
        except (OSError, IndexError, ValueError):
            pass
    return total, rss
t0, _ = ticks()
time.sleep(0.2)
t1, rss = ticks()
fs = os.statvfs("/")
print(t1 - t0, os.sysconf("SC_CLK_TCK"), rss * os.sysconf("SC_PAGE_SIZE"), (fs.f_blocks - fs.f_bfree) * fs.f_frsize, fs.f_blocks * fs.f_frsize)
`;

export async function sandboxMetrics(sandbox: Sandbox) {
  const r = await sandbox.exec(['python3', '-c', PROBE], { timeoutMs: 30_000 });
  const numbers = r.stdout.trim().split(/\s+/).map(Number);
  if (r.exitCode !== 0 || numbers.length !== 5 || numbers.some((n) => !Number.isFinite(n))) {
    throw new HttpError(500, `cannot measure sandbox ${sandbox.id}: ${r.stderr.trim() || r.stdout.trim()}`);
  }
  const [ticks, hz, memUsed, diskUsed, diskFs] = numbers as [number, number, number, number, number];
  const cpus = sandbox.limits.cpus;
  return [
    {
      timestamp: new Date().toISOString(),
      cpuCount: Math.max(1, Math.ceil(cpus)),
      cpuUsedPct: Math.round(Math.min(100, (ticks / hz / 0.2 / cpus) * 100) * 100) / 100,
      memUsed,
      memTotal: sandbox.limits.memoryBytes,
      diskUsed,
      diskTotal: Math.min(diskFs, sandbox.limits.diskBytes),
    },
  ];
}
