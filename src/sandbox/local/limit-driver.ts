import type { SandboxLimits } from '../types.ts';
import type { LimitEntry } from './limit-entry.ts';

/** How a sandbox's limits are enforced; recorded in its meta.json. */
export type LimitMechanism = 'cgroup-v1' | 'cgroup-v2' | 'rlimit';

/** Enforces limits and tracks process trees for the sandboxes of one host. */
export interface LimitDriver {
  readonly mechanism: LimitMechanism;
  /** Creates (or, for gc, just names) the limits of sandbox `id`. */
  sandbox(id: string): SandboxLimitsHandle;
  /** Ids of sandboxes that have cgroups on this host (empty for rlimits, which leave nothing behind). */
  listSandboxIds(): string[];
  /** The cgroup directories of sandbox `id`. */
  cgroupDirs(id: string): string[];
  /** Removes sandbox `id`'s cgroups if no process is left in them; true when they are gone. */
  removeIfEmpty(id: string): boolean;
}

export interface SandboxLimitsHandle {
  /** Creates the sandbox's cgroups and writes `limits`; returns the limits actually in force. */
  apply(limits: SandboxLimits): string[];
  /** How a process puts itself under the sandbox's limits before it execs. */
  entry(): LimitEntry;
  /** A group for one exec: joined through its `entry`, killed as a whole even after setsid. */
  execGroup(execId: string): ExecGroup;
  /** True when (almost) no process can start any more: the sandbox is at its process limit. */
  pidsExhausted(): boolean;
  /** Whether freeze() really stops the processes (cgroups); without cgroups it does nothing. */
  readonly freezes: boolean;
  /** Stops every process of the sandbox (fork and snapshot copy a still filesystem). */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Kills every process in the sandbox's cgroups, then removes them; retries until empty. */
  destroy(): Promise<void>;
}

export interface ExecGroup {
  /** How a process joins this group (and the sandbox's limits). */
  entry(): LimitEntry;
  /** The host process that applied `entry`, for drivers that track by process group. */
  attach(pid: number): void;
  /** Kills the whole tree, orphans and setsid children included, and waits until it is gone. */
  kill(): Promise<void>;
  /** Sends `signal` to every process of the group. */
  signal(signal: NodeJS.Signals): void;
  /** Frees the group if it is empty (background processes may outlive their exec); true when freed. */
  release(): boolean;
}
