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

const CONTROLLERS = ['memory', 'pids', 'cpu', 'freezer'] as const;
type Controller = (typeof CONTROLLERS)[number];
const CFS_PERIOD_US = 100_000;

/**
 * cgroup v1 (one hierarchy per controller, as on this project's CI hosts): each sandbox gets
 * `<root>/{memory,pids,cpu,freezer}/<parent>/<id>`, each exec a child of the freezer group so that a
 * timeout can freeze and kill exactly that exec's tree.
 */
export class CgroupV1Driver implements LimitDriver {
  readonly mechanism = 'cgroup-v1';

  constructor(
    readonly root = '/sys/fs/cgroup',
    readonly parent = 'sandgym',
  ) {}

  /** The driver when every controller it needs is mounted as v1 and writable, else undefined. */
  static detect(root = '/sys/fs/cgroup', parent = 'sandgym'): CgroupV1Driver | undefined {
    try {
      for (const c of CONTROLLERS) mkdirSync(join(root, c, parent), { recursive: true });
      return new CgroupV1Driver(root, parent);
    } catch {
      return undefined;
    }
  }

  dir(controller: Controller, id: string): string {
    return join(this.root, controller, this.parent, id);
  }

  sandbox(id: string): SandboxLimitsHandle {
    return new V1Sandbox(this, id);
  }

  cgroupDirs(id: string): string[] {
    return CONTROLLERS.map((c) => this.dir(c, id));
  }

  removeIfEmpty(id: string): boolean {
    return this.cgroupDirs(id)
      .map((d) => removeCgroupTree(d))
      .every(Boolean);
  }

  listSandboxIds(): string[] {
    const ids = CONTROLLERS.flatMap((c) =>
      childCgroups(join(this.root, c, this.parent)).map((d) => d.slice(d.lastIndexOf('/') + 1)),
    );
    return [...new Set(ids)];
  }
}

class V1Freezer {
  constructor(readonly dir: string) {}

  async freeze(): Promise<void> {
    writeIfPresent(this.dir, 'freezer.state', 'FROZEN');
    // FREEZING turns FROZEN once every task stopped; a task in uninterruptible sleep may delay it.
    const end = Date.now() + 2000;
    while (readCgroupFile(this.dir, 'freezer.state')?.trim() === 'FREEZING' && Date.now() < end)
      await sleep(1);
  }

  async thaw(): Promise<void> {
    writeIfPresent(this.dir, 'freezer.state', 'THAWED');
  }
}

class V1Sandbox implements SandboxLimitsHandle {
  readonly freezes = true;
  private readonly freezer: V1Freezer;

  constructor(
    private readonly driver: CgroupV1Driver,
    private readonly id: string,
  ) {
    this.freezer = new V1Freezer(driver.dir('freezer', id));
  }

  apply(limits: SandboxLimits): string[] {
    for (const c of CONTROLLERS) mkdirSync(this.driver.dir(c, this.id), { recursive: true });
    const memory = this.driver.dir('memory', this.id);
    writeCgroupFile(memory, 'memory.limit_in_bytes', String(limits.memoryBytes));
    // Without swap accounting the file is absent; with it, this stops the sandbox from swapping instead.
    if (existsSync(join(memory, 'memory.memsw.limit_in_bytes'))) {
      writeCgroupFile(memory, 'memory.memsw.limit_in_bytes', String(limits.memoryBytes));
    }
    writeCgroupFile(this.driver.dir('pids', this.id), 'pids.max', String(limits.pids));
    const cpu = this.driver.dir('cpu', this.id);
    writeCgroupFile(cpu, 'cpu.cfs_period_us', String(CFS_PERIOD_US));
    writeCgroupFile(cpu, 'cpu.cfs_quota_us', String(Math.max(1000, Math.round(limits.cpus * CFS_PERIOD_US))));
    return ['memory', 'pids', 'cpu', 'freezer'];
  }

  entry(freezerDir = this.driver.dir('freezer', this.id)): LimitEntry {
    const dirs = [
      ...CONTROLLERS.filter((c) => c !== 'freezer').map((c) => this.driver.dir(c, this.id)),
      freezerDir,
    ];
    return { procsFiles: dirs.map((d) => `${d}/cgroup.procs`) };
  }

  execGroup(execId: string): ExecGroup {
    const dir = join(this.driver.dir('freezer', this.id), execId);
    mkdirSync(dir);
    const freezer = new V1Freezer(dir);
    return {
      entry: () => this.entry(dir),
      attach: () => {},
      kill: async () => {
        await killCgroupTree(dir, freezer);
      },
      signal: (signal) => killPids(cgroupPids(dir), signal),
      release: () => removeCgroupTree(dir),
    };
  }

  pidsExhausted(): boolean {
    return pidsNearMax(this.driver.dir('pids', this.id));
  }

  freeze(): Promise<void> {
    return this.freezer.freeze();
  }

  thaw(): Promise<void> {
    return this.freezer.thaw();
  }

  async destroy(): Promise<void> {
    const freezerDir = this.driver.dir('freezer', this.id);
    if (existsSync(freezerDir)) await killCgroupTree(freezerDir, this.freezer);
    // The other controllers hold the same processes, but kill there too in case one joined only them.
    for (const c of CONTROLLERS) await killCgroupTree(this.driver.dir(c, this.id), undefined);
    const end = Date.now() + 10_000;
    while (!CONTROLLERS.map((c) => removeCgroupTree(this.driver.dir(c, this.id))).every(Boolean)) {
      if (Date.now() > end) throw new SandboxError(this.id, 'its cgroups stay busy; run "sandgym gc" later');
      await sleep(5);
    }
  }
}
