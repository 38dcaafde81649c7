import { ConfigError } from '../../errors.ts';
import { DEFAULT_LIMITS, type SandboxLimits } from '../types.ts';

const MiB = 1024 * 1024;

/** The smallest values a sandbox can start and run a shell with; below them nothing works. */
const MINIMUM: SandboxLimits = { memoryBytes: 16 * MiB, pids: 8, cpus: 0.01, diskBytes: MiB, outputBytes: 0 };

/** Defaults overlaid with the caller's limits, each checked; a bad one throws a `ConfigError` naming it. */
export function resolveLimits(partial: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) {
    const value = limits[key];
    const integer = key !== 'cpus';
    const valid =
      typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isSafeInteger(value));
    if (!valid || value < MINIMUM[key]) {
      throw new ConfigError(
        `invalid sandbox limit ${key}=${String(value)}: expected ${integer ? 'an integer' : 'a number'} ` +
          `of at least ${MINIMUM[key]}`,
      );
    }
  }
  return limits;
}
