import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { ConfigError } from '../../errors.ts';
import { CgroupV1Driver } from './cgroups-v1.ts';
import { CgroupV2Driver } from './cgroups-v2.ts';
import type { LimitDriver } from './limit-driver.ts';
import { RlimitDriver } from './rlimits.ts';

export type LimitChoice = 'auto' | 'cgroup-v1' | 'cgroup-v2' | 'rlimit';

/**
 * The cgroup parent of one sandgym home's sandboxes: `sandgym/home-<hash of its path>`. Homes never
 * share a parent, so `gc` of one home lists, and removes, only cgroups that home created: a shared parent
 * had gc remove the fresh (still empty) exec groups of another home's live sandbox, whose exec then
 * failed "cannot join … cgroup.procs".
 */
export function cgroupParent(home: string): string {
  return `sandgym/home-${createHash('sha256').update(resolve(home)).digest('hex').slice(0, 12)}`;
}

/**
 * The strongest limit mechanism this host offers: cgroup v2 when /sys/fs/cgroup is a unified hierarchy,
 * cgroup v1 when its controllers are mounted separately, rlimits when no cgroup is writable.
 */
export function chooseLimitDriver(
  choice: LimitChoice = 'auto',
  parent = 'sandgym',
  cgroupRoot = '/sys/fs/cgroup',
): LimitDriver {
  const v2 =
    choice === 'auto' || choice === 'cgroup-v2' ? CgroupV2Driver.detect(cgroupRoot, parent) : undefined;
  if (v2) return v2;
  const v1 =
    choice === 'auto' || choice === 'cgroup-v1' ? CgroupV1Driver.detect(cgroupRoot, parent) : undefined;
  if (v1) return v1;
  if (choice !== 'auto' && choice !== 'rlimit') {
    throw new ConfigError(
      `limit mechanism ${choice} is not available on this host (${cgroupRoot}); use auto`,
    );
  }
  return new RlimitDriver();
}
