import { readFileSync, statfsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { DEFAULT_LIMITS, type SandboxLimits } from '../sandbox/index.ts';
import type { QuotaRefusal } from './quota.ts';

/** What one sandbox takes from the host's budget: its limits, which the host must be able to honour. */
export type SandboxNeeds = Pick<SandboxLimits, 'memoryBytes' | 'pids' | 'diskBytes'>;

/** The needs of a sandbox asked with `limits` (the defaults filling what it leaves out). */
export function sandboxNeeds(limits: Partial<SandboxLimits>): SandboxNeeds {
  const { memoryBytes, pids, diskBytes } = { ...DEFAULT_LIMITS, ...limits };
  return { memoryBytes, pids, diskBytes };
}

/** Host-wide caps of `sandgym serve`, over all keys together (each key also has its own quota). */
export interface HostCaps {
  sandboxes: number;
  /** Sum of the sandboxes' memory limits. */
  memoryBytes: number;
  /** Sum of the sandboxes' process limits. */
  pids: number;
  /** Sum of the sandboxes' disk limits. */
  diskBytes: number;
}

/** What the caps are computed from. */
export interface HostFacts {
  totalMemoryBytes: number;
  /** Processes and threads the kernel allows at once: min(kernel.pid_max, kernel.threads-max). */
  pidCapacity: number;
  /** Free bytes of the filesystem holding the sandboxes' state. */
  freeDiskBytes: number;
}

/**
 * Memory and disk limits are ceilings most sandboxes never reach: their sum may exceed the host by this
 * factor. Processes get no such credit: a fork bomb fills its limit at once, and pids are one kernel-wide
 * table, so the sum of process limits stays within half of it (the other half is the host's).
 */
const OVERCOMMIT = 4;
/** What a sandbox costs besides its limits (bwrap, pid 1, mounts, kernel state): bounds the count. */
const SANDBOX_BASELINE_BYTES = 64 * 1024 ** 2;

export function hostCaps(facts: HostFacts): HostCaps {
  return {
    sandboxes: Math.max(1, Math.floor(facts.totalMemoryBytes / SANDBOX_BASELINE_BYTES)),
    memoryBytes: OVERCOMMIT * facts.totalMemoryBytes,
    pids: Math.floor(facts.pidCapacity / 2),
    diskBytes: OVERCOMMIT * facts.freeDiskBytes,
  };
}

/** This host's facts, read once (at server start). */
export function readHostFacts(stateDir: string): HostFacts {
  const kernel = (name: string) => {
    try {
      return Number(readFileSync(`/proc/sys/kernel/${name}`, 'utf8').trim());
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };
  const pidCapacity = Math.min(kernel('pid_max'), kernel('threads-max'));
  let freeDiskBytes = Number.POSITIVE_INFINITY;
  try {
    const fs = statfsSync(stateDir);
    freeDiskBytes = fs.bavail * fs.bsize;
  } catch {}
  return {
    totalMemoryBytes: totalmem(),
    pidCapacity: Number.isFinite(pidCapacity) ? pidCapacity : 32_768,
    freeDiskBytes,
  };
}

/**
 * Admission over the host's caps: a create (or fork) takes room for its sandboxes' limits or is refused
 * with a 429 saying which cap is full, so that no key, and no set of keys, can exhaust the host's
 * processes, memory or disk. Room taken for a sandbox is held under its id until it ends.
 */
export class HostBudget {
  private used = { sandboxes: 0, memoryBytes: 0, pids: 0, diskBytes: 0 };
  private readonly held = new Map<string, SandboxNeeds>();

  constructor(readonly caps: HostCaps) {}

  acquire(needs: SandboxNeeds, count = 1): QuotaRefusal | undefined {
    const want = {
      sandboxes: count,
      memoryBytes: needs.memoryBytes * count,
      pids: needs.pids * count,
      diskBytes: needs.diskBytes * count,
    };
    for (const key of ['sandboxes', 'pids', 'memoryBytes', 'diskBytes'] as const) {
      if (this.used[key] + want[key] > this.caps[key]) {
        return {
          message:
            `the host is full: ${count} more sandbox(es) would take ${describe(key, this.used[key] + want[key])} ` +
            `of the host-wide cap of ${describe(key, this.caps[key])} (all keys together); ` +
            'ask for smaller limits, or retry once other sandboxes have ended',
          retryAfterS: 5,
        };
      }
    }
    for (const key of Object.keys(want) as (keyof typeof want)[]) this.used[key] += want[key];
    return undefined;
  }

  /** Gives back room taken by `acquire` that no sandbox holds (a create that failed). */
  release(needs: SandboxNeeds, count = 1): void {
    this.used.sandboxes -= count;
    this.used.memoryBytes -= needs.memoryBytes * count;
    this.used.pids -= needs.pids * count;
    this.used.diskBytes -= needs.diskBytes * count;
  }

  /** Room taken by `acquire` now belongs to sandbox `id`, until `end(id)`. */
  hold(id: string, needs: SandboxNeeds): void {
    this.held.set(id, needs);
  }

  end(id: string): void {
    const needs = this.held.get(id);
    if (!needs) return;
    this.held.delete(id);
    this.release(needs);
  }
}

function describe(key: keyof HostCaps, value: number): string {
  if (key === 'sandboxes') return `${value} sandboxes`;
  if (key === 'pids') return `${value} processes`;
  return `${(value / 1024 ** 3).toFixed(1)} GiB of ${key === 'memoryBytes' ? 'memory' : 'disk'} limits`;
}
