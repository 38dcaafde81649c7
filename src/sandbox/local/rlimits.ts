import type { SandboxLimits } from '../types.ts';
import type { ExecGroup, LimitDriver, SandboxLimitsHandle } from './limit-driver.ts';
import type { LimitEntry } from './limit-entry.ts';

/**
 * The fallback where no cgroup hierarchy is writable: per-process rlimits set by the process that execs
 * bwrap (and each exec). Weaker, and the sandbox's meta says so: memory is capped per process (address
 * space), one file's size by the disk limit, and nothing caps process count (uid 0 is exempt from
 * RLIMIT_NPROC) or CPU. Exec trees are killed by process group, which a setsid child escapes; the
 * sandbox's pid namespace still ends them all on close.
 */
export class RlimitDriver implements LimitDriver {
  readonly mechanism = 'rlimit';

  sandbox(): SandboxLimitsHandle {
    return new RlimitSandbox();
  }

  listSandboxIds(): string[] {
    return [];
  }

  cgroupDirs(): string[] {
    return [];
  }

  removeIfEmpty(): boolean {
    return true;
  }
}

class RlimitSandbox implements SandboxLimitsHandle {
  readonly freezes = false;
  private limits: SandboxLimits | undefined;

  apply(limits: SandboxLimits): string[] {
    this.limits = limits;
    return ['memory-per-process', 'file-size'];
  }

  entry(): LimitEntry {
    if (!this.limits) return { procsFiles: [] };
    return {
      procsFiles: [],
      addressSpaceBytes: this.limits.memoryBytes,
      fileSizeBytes: this.limits.diskBytes,
    };
  }

  execGroup(): ExecGroup {
    let leader: number | undefined;
    const signalGroup = (signal: NodeJS.Signals) => {
      if (leader === undefined) return;
      try {
        process.kill(-leader, signal);
      } catch {}
    };
    return {
      entry: () => this.entry(),
      attach: (pid) => {
        leader = pid;
      },
      kill: async () => signalGroup('SIGKILL'),
      signal: signalGroup,
      release: () => true,
    };
  }

  /** Nothing counts a sandbox's processes here (see the class comment). */
  pidsExhausted(): boolean {
    return false;
  }

  async freeze(): Promise<void> {}

  async thaw(): Promise<void> {}

  async destroy(): Promise<void> {}
}
