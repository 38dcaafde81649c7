import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../errors.ts';
import type { SandboxLimits } from '../types.ts';
import {
  cgroupPids,
  childCgroups,
  killCgroupTree,
  killPids,
  pidsNearMax,
  readCgroupFile,
  removeCgroupTree,
  sleep,
  writeCgroupFile,
  writeIfPresent,
} from './cgroup-fs.ts';
import type { ExecGroup, LimitDriver, SandboxLimitsHandle } from './limit-driver.ts';
import type { LimitEntry } from './limit-entry.ts';

const WANTED = ['memory', 'pids', 'cpu'] as const;
const CPU_PERIOD_US = 100_000;

/**
 * cgroup v2 (one unified hierarchy, most desktops): each sandbox gets `<root>/<parent>/<id>` with
 * memory.max, pids.max and cpu.max, each exec a child group (no controllers enabled below the sandbox, so
 * the sandbox group may hold processes itself). Freezing and killing use cgroup.freeze and cgroup.kill.
 */
export class CgroupV2Driver implements LimitDriver {
  readonly mechanism = 'cgroup-v2';
  readonly base: string;

  constructor(
    readonly root = '/sys/fs/cgroup',
    readonly parent = 'sandgym',
  ) {
    this.base = join(root, parent);
  }

  /** The driver when `root` is a writable v2 hierarchy, else undefined. */
  static detect(root = '/sys/fs/cgroup', parent = 'sandgym'): CgroupV2Driver | undefined {
    if (!existsSync(join(root, 'cgroup.controllers'))) return undefined;
    try {
      mkdirSync(join(root, parent), { recursive: true });
    } catch {
      return undefined;
    }
    const driver = new CgroupV2Driver(root, parent);
    driver.enableControllers();
    return driver;
  }

  /**
   * Turns on the wanted controllers down to the sandboxes' parent (every level of `parent`); those the
   * host lacks stay off.
   */
  private enableControllers(): void {
    const available = (readCgroupFile(this.root, 'cgroup.controllers') ?? '').split(/\s+/);
    const levels = this.parent.split('/').map((_, i, parts) => join(this.root, ...parts.slice(0, i + 1)));
    for (const c of WANTED.filter((w) => available.includes(w))) {
      for (const dir of [this.root, ...levels]) {
        try {
          writeCgroupFile(dir, 'cgroup.subtree_control', `+${c}`);
        } catch {}
      }
    }
  }

  sandbox(id: string): SandboxLimitsHandle {
    return new V2Sandbox(join(this.base, id), id);
  }

  cgroupDirs(id: string): string[] {
    return [join(this.base, id)];
  }

  removeIfEmpty(id: string): boolean {
    return removeCgroupTree(join(this.base, id));
  }

  listSandboxIds(): string[] {
    return childCgroups(this.base).map((d) => d.slice(d.lastIndexOf('/') + 1));
  }
}

class V2Freezer {
  constructor(readonly dir: string) {}

  async freeze(): Promise<void> {
    writeIfPresent(this.dir, 'cgroup.freeze', '1');
    const end = Date.now() + 2000;
    while (!/^frozen 1$/m.test(readCgroupFile(this.dir, 'cgroup.events') ?? '') && Date.now() < end)
      await sleep(1);
  }

  async thaw(): Promise<void> {
    writeIfPresent(this.dir, 'cgroup.freeze', '0');
  }
}

/** Kills a v2 group: cgroup.kill where the kernel has it (5.14+), else freeze and kill pid by pid. */
async function killV2(dir: string): Promise<void> {
  if (existsSync(join(dir, 'cgroup.kill'))) writeIfPresent(dir, 'cgroup.kill', '1');
  await killCgroupTree(dir, existsSync(dir) ? new V2Freezer(dir) : undefined);
}

class V2Sandbox implements SandboxLimitsHandle {
  readonly freezes = true;
  private readonly freezer: V2Freezer;

  constructor(
    private readonly dir: string,
    private readonly id: string,
  ) {
    this.freezer = new V2Freezer(dir);
  }

  apply(limits: SandboxLimits): string[] {
    mkdirSync(this.dir, { recursive: true });
    const enforced: string[] = ['freezer'];
    const set = (file: string, value: string) => {
      if (!existsSync(join(this.dir, file))) return false;
      writeCgroupFile(this.dir, file, value);
      return true;
    };
    if (set('memory.max', String(limits.memoryBytes))) {
      set('memory.swap.max', '0');
      enforced.push('memory');
    }
    if (set('pids.max', String(limits.pids))) enforced.push('pids');
    const quota = Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US));
    if (set('cpu.max', `${quota} ${CPU_PERIOD_US}`)) enforced.push('cpu');
    return enforced;
  }

  entry(dir = this.dir): LimitEntry {
    return { procsFiles: [`${dir}/cgroup.procs`] };
  }

  execGroup(execId: string): ExecGroup {
    const dir = join(this.dir, execId);
    mkdirSync(dir);
    return {
      entry: () => this.entry(dir),
      attach: () => {},
      kill: () => killV2(dir),
      signal: (signal) => killPids(cgroupPids(dir), signal),
      release: () => removeCgroupTree(dir),
    };
  }

  pidsExhausted(): boolean {
    return pidsNearMax(this.dir);
  }

  freeze(): Promise<void> {
    return this.freezer.freeze();
  }

  thaw(): Promise<void> {
    return this.freezer.thaw();
  }

  async destroy(): Promise<void> {
    await killV2(this.dir);
    const end = Date.now() + 10_000;
    while (!removeCgroupTree(this.dir)) {
      if (Date.now() > end) throw new SandboxError(this.id, 'its cgroup stays busy; run "sandgym gc" later');
      await sleep(5);
    }
  }
}
