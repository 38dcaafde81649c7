import type { SandboxLimits } from '../types.ts';
import type { ExecGroup, LimitDriver, SandboxLimitsHandle } from './limit-driver.ts';

/**
 * The fallback where no cgroup hierarchy is writable: per-process rlimits set by the shell that execs
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
  private limits: SandboxLimits | undefined;

  apply(limits: SandboxLimits): string[] {
    this.limits = limits;
    return ['memory-per-process', 'file-size'];
  }

  enterScript(): string {
    if (!this.limits) return 'true';
    // dash's ulimit takes KiB for -v and 512-byte blocks for -f.
    const kib = Math.floor(this.limits.memoryBytes / 1024);
    const blocks = Math.floor(this.limits.diskBytes / 512);
    return `ulimit -v ${kib} && ulimit -f ${blocks}`;
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
      enterScript: () => this.enterScript(),
      attach: (pid) => {
        leader = pid;
      },
      kill: async () => signalGroup('SIGKILL'),
      signal: signalGroup,
      release: () => {},
    };
  }

  async freeze(): Promise<void> {}

  async thaw(): Promise<void> {}

  async destroy(): Promise<void> {}
}
