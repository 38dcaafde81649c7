import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who owns a sandbox: a run id that names this host, this boot, this process and its start time, so a
 * later `sandgym gc` can tell a live owner from a dead one even after the pid has been reused.
 *
 * Format: `<host>.<boot>.<pid>.<start>` where host is the machine id (or hostname), boot the boot id,
 * pid the process id and start its start time in clock ticks since boot.
 */
export interface RunOwner {
  host: string;
  boot: string;
  pid: number;
  start: number;
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function shortId(s: string): string {
  return s.replace(/[^0-9a-zA-Z]/g, '').slice(0, 12);
}

export function hostId(): string {
  return shortId(readTrimmed('/etc/machine-id') ?? hostname());
}

export function bootId(): string {
  return shortId(readTrimmed('/proc/sys/kernel/random/boot_id') ?? 'noboot');
}

/**
 * Start time of a process in clock ticks since boot, or undefined when it does not exist or has exited
 * (a zombie: killed, and not yet reaped by its parent).
 */
export function processStartTicks(pid: number): number | undefined {
  const fields = procStatFields(pid);
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  const start = Number(fields[19]); // field 22
  return Number.isFinite(start) ? start : undefined;
}

/**
 * Fields 3 onward of /proc/<pid>/stat (the state first, so field N is at index N - 3), or undefined
 * when the process does not exist.
 */
export function procStatFields(pid: number): string[] | undefined {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  // The command name (field 2) may contain spaces and parentheses, so count from the last ')'.
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : undefined;
}

let current: string | undefined;

/** The run id of this process. */
export function currentRunId(): string {
  current ??= formatRunId({
    host: hostId(),
    boot: bootId(),
    pid: process.pid,
    start: processStartTicks(process.pid) ?? 0,
  });
  return current;
}

export function formatRunId(o: RunOwner): string {
  return `${o.host}.${o.boot}.${o.pid}.${o.start}`;
}

export function parseRunId(id: string): RunOwner | undefined {
  const m = /^([0-9a-zA-Z]+)\.([0-9a-zA-Z]+)\.(\d+)\.(\d+)$/.exec(id);
  if (!m) return undefined;
  return { host: m[1]!, boot: m[2]!, pid: Number(m[3]), start: Number(m[4]) };
}

/**
 * 'alive' or 'dead' when this host can tell; 'unknown' for a run of another host (then only the TTL
 * decides). A run of this host from an earlier boot is dead.
 */
export function runLiveness(runId: string): 'alive' | 'dead' | 'unknown' {
  const o = parseRunId(runId);
  if (!o) return 'unknown';
  if (o.host !== hostId()) return 'unknown';
  if (o.boot !== bootId()) return 'dead';
  return processStartTicks(o.pid) === o.start ? 'alive' : 'dead';
}

/** Whether gc may remove a sandbox with these labels. */
export function isOrphan(
  labels: { run?: string; createdAtMs?: number; ttlMs?: number },
  nowMs = Date.now(),
): boolean {
  const expired =
    labels.createdAtMs !== undefined &&
    labels.ttlMs !== undefined &&
    nowMs > labels.createdAtMs + labels.ttlMs;
  if (expired) return true;
  return labels.run === undefined || runLiveness(labels.run) === 'dead';
}
