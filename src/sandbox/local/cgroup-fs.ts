import { readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Small synchronous helpers over cgroupfs: its files are tiny and answer from memory. */

export function writeCgroupFile(dir: string, file: string, value: string): void {
  writeFileSync(join(dir, file), value);
}

/** Like writeCgroupFile, for groups that may vanish meanwhile (their last process exited). */
export function writeIfPresent(dir: string, file: string, value: string): void {
  try {
    writeFileSync(join(dir, file), value);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

export function readCgroupFile(dir: string, file: string): string | undefined {
  try {
    return readFileSync(join(dir, file), 'utf8');
  } catch {
    return undefined;
  }
}

/** Child cgroup directories of `dir` (cgroupfs lists control files as regular files). */
export function childCgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

/** Pids in `dir` and all its descendants. */
export function cgroupPids(dir: string): number[] {
  const own = (readCgroupFile(dir, 'cgroup.procs') ?? '').split('\n').filter(Boolean).map(Number);
  return [...own, ...childCgroups(dir).flatMap(cgroupPids)];
}

/** Removes `dir` and its descendants, deepest first; false while any of them still holds a process. */
export function removeCgroupTree(dir: string): boolean {
  let ok = true;
  for (const child of childCgroups(dir)) ok = removeCgroupTree(child) && ok;
  try {
    rmdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') ok = false;
  }
  return ok;
}

/**
 * Processes that may still start before a group counts as full: an exec needs its helper's fork and a
 * shell's few. A fork bomb holds a group at its limit; a busy sandbox rarely comes this close.
 */
const PIDS_HEADROOM = 8;

/** Whether the pids controller at `dir` is (within PIDS_HEADROOM of) its pids.max. */
export function pidsNearMax(dir: string): boolean {
  const max = Number(readCgroupFile(dir, 'pids.max'));
  const current = Number(readCgroupFile(dir, 'pids.current'));
  return Number.isFinite(max) && Number.isFinite(current) && current >= max - PIDS_HEADROOM;
}

export function killPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Kills every process under `dir` for good: freeze (so nothing can fork while we look), SIGKILL each pid,
 * thaw (the kills land), repeat until the tree is empty or `deadlineMs` passes.
 */
export async function killCgroupTree(
  dir: string,
  freezer: { freeze(): Promise<void>; thaw(): Promise<void> } | undefined,
  deadlineMs = 10_000,
): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  for (let round = 0; ; round++) {
    const pids = cgroupPids(dir);
    if (pids.length === 0) return true;
    if (Date.now() > end) return false;
    if (round > 0) await sleep(Math.min(2 * round, 20));
    await freezer?.freeze();
    killPids(cgroupPids(dir), 'SIGKILL');
    await freezer?.thaw();
  }
}
