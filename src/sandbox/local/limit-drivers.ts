import { ConfigError } from '../../errors.ts';
import { CgroupV1Driver } from './cgroups-v1.ts';
import { CgroupV2Driver } from './cgroups-v2.ts';
import type { LimitDriver } from './limit-driver.ts';
import { RlimitDriver } from './rlimits.ts';

export type LimitChoice = 'auto' | 'cgroup-v1' | 'cgroup-v2' | 'rlimit';

/**
 * The strongest limit mechanism this host offers: cgroup v2 when /sys/fs/cgroup is a unified hierarchy,
 * cgroup v1 when its controllers are mounted separately, rlimits when no cgroup is writable.
 */
export function chooseLimitDriver(choice: LimitChoice = 'auto', cgroupRoot = '/sys/fs/cgroup'): LimitDriver {
  const v2 = choice === 'auto' || choice === 'cgroup-v2' ? CgroupV2Driver.detect(cgroupRoot) : undefined;
  if (v2) return v2;
  const v1 = choice === 'auto' || choice === 'cgroup-v1' ? CgroupV1Driver.detect(cgroupRoot) : undefined;
  if (v1) return v1;
  if (choice !== 'auto' && choice !== 'rlimit') {
    throw new ConfigError(
      `limit mechanism ${choice} is not available on this host (${cgroupRoot}); use auto`,
    );
  }
  return new RlimitDriver();
}
