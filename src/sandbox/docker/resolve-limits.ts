import { ConfigError } from '../../errors.ts';
import { DEFAULT_LIMITS, type SandboxLimits } from '../types.ts';

/** Docker refuses a memory limit under 6 MiB. */
export const MIN_MEMORY_BYTES = 6 * 1024 * 1024;
/** The sandbox's init, its sleep, the command and the kill helper must fit under the pids limit. */
export const MIN_PIDS = 8;

const KEYS = Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[];

/**
 * The caller's limits over the defaults, checked before anything is created. `hostCpus` (the engine's
 * CPU count) bounds `cpus`, which Docker would otherwise reject later with a vaguer message.
 */
export function resolveLimits(partial: Partial<SandboxLimits> = {}, hostCpus?: number): SandboxLimits {
  for (const key of Object.keys(partial)) {
    if (!KEYS.includes(key as keyof SandboxLimits)) {
      throw new ConfigError(`unknown sandbox limit "${key}"; valid limits: ${KEYS.join(', ')}`);
    }
  }
  const limits: SandboxLimits = { ...DEFAULT_LIMITS };
  for (const key of KEYS) {
    const value = partial[key];
    if (value !== undefined) limits[key] = value;
  }
  const bad = (key: keyof SandboxLimits, rule: string) =>
    new ConfigError(`limits.${key} must be ${rule}, got ${String(limits[key])}`);
  if (!Number.isSafeInteger(limits.memoryBytes) || limits.memoryBytes < MIN_MEMORY_BYTES) {
    throw bad('memoryBytes', `an integer number of bytes of at least ${MIN_MEMORY_BYTES} (6 MiB)`);
  }
  if (!Number.isSafeInteger(limits.pids) || limits.pids < MIN_PIDS) {
    throw bad('pids', `an integer of at least ${MIN_PIDS}`);
  }
  if (!Number.isFinite(limits.cpus) || limits.cpus < 0.01) {
    throw bad('cpus', 'a number of cores of at least 0.01');
  }
  if (hostCpus !== undefined && limits.cpus > hostCpus) {
    throw bad('cpus', `at most the ${hostCpus} cores of the Docker host`);
  }
  if (!Number.isSafeInteger(limits.diskBytes) || limits.diskBytes < 1) {
    throw bad('diskBytes', 'a positive integer number of bytes');
  }
  if (!Number.isSafeInteger(limits.outputBytes) || limits.outputBytes < 0) {
    throw bad('outputBytes', 'a non-negative integer number of bytes');
  }
  return limits;
}
