import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxLimits } from '../types.ts';
import type { LimitMechanism } from './limit-driver.ts';

/**
 * `<home>/sandboxes/<id>/meta.json`: everything `gc` (in this or another process) needs to find and
 * remove a local sandbox. Written before anything else exists, so a crash at any later point leaves a
 * sandbox that gc can attribute to its (dead) owner.
 */
export interface SandboxMeta {
  id: string;
  image: string;
  /** Lower layers, topmost first; `images rm` and layer pruning keep them while the sandbox lives. */
  layers: string[];
  labels: Record<string, string>;
  /** Owner run id (see owner.ts). */
  run: string;
  createdAtMs: number;
  ttlMs: number;
  limits: SandboxLimits;
  limitMechanism: LimitMechanism;
  /** Limits actually in force (e.g. `memory`, `pids`, `cpu`, `freezer`). */
  limitsEnforced: string[];
  /** Host pid of the sandbox's pid 1 and its start time, so a reused pid is never killed by mistake. */
  init?: { pid: number; startTicks: number };
  /** Host pid of `sandgym-helper start`, bwrap's parent: holds the sandbox's mounts and its uid range. */
  holder?: { pid: number; startTicks: number };
  /** Host pid of pasta, the user-mode NAT of a sandbox with network access (see network.ts). */
  pasta?: { pid: number; startTicks: number };
}

export function metaPath(dir: string): string {
  return join(dir, 'meta.json');
}

/** Synchronous: a sandbox start writes it twice, and a hop through libuv's threadpool costs more than the write. */
export function writeMeta(dir: string, meta: SandboxMeta): void {
  const tmp = `${metaPath(dir)}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(meta));
  renameSync(tmp, metaPath(dir));
}

export async function readMeta(dir: string): Promise<SandboxMeta | undefined> {
  try {
    return JSON.parse(await readFile(metaPath(dir), 'utf8')) as SandboxMeta;
  } catch {
    return undefined;
  }
}
