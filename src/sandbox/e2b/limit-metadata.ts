import { ConfigError } from '../../errors.ts';
import { DEFAULT_LIMITS, type SandboxLimits } from '../types.ts';

/**
 * Resource limits travel as sandbox metadata, the one free-form field of the E2B create call:
 * `sandgym serve` applies them; other servers keep them as labels and size sandboxes by template.
 * The output cap is not sent: the client cuts output itself.
 */
export const LIMIT_METADATA = {
  memoryBytes: 'sandgym.limit.memory-bytes',
  pids: 'sandgym.limit.pids',
  cpus: 'sandgym.limit.cpus',
  diskBytes: 'sandgym.limit.disk-bytes',
} as const;

type SentLimit = keyof typeof LIMIT_METADATA;

const MiB = 1024 * 1024;
/** Below these nothing can start a shell; the server refuses them too. */
const MINIMUM: SandboxLimits = { memoryBytes: 16 * MiB, pids: 8, cpus: 0.01, diskBytes: MiB, outputBytes: 0 };

/** Defaults overlaid with `partial`, each checked; a bad one throws a `ConfigError` naming it. */
export function resolveLimits(partial: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) checkLimit(key, limits[key]);
  return limits;
}

function checkLimit(key: keyof SandboxLimits, value: unknown): void {
  const integer = key !== 'cpus';
  const valid =
    typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isSafeInteger(value));
  if (!valid || (value as number) < MINIMUM[key]) {
    throw new ConfigError(
      `invalid sandbox limit ${key}=${String(value)}: expected ${integer ? 'an integer' : 'a number'} ` +
        `of at least ${MINIMUM[key]}`,
    );
  }
}

export function limitsToMetadata(limits: SandboxLimits): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, name] of Object.entries(LIMIT_METADATA)) out[name] = String(limits[key as SentLimit]);
  return out;
}

/** The limits named in `metadata`; a malformed one throws a `ConfigError` naming its key. */
export function limitsFromMetadata(metadata: Record<string, string>): Partial<SandboxLimits> {
  const out: Partial<SandboxLimits> = {};
  for (const [key, name] of Object.entries(LIMIT_METADATA) as [SentLimit, string][]) {
    const text = metadata[name];
    if (text === undefined) continue;
    const value = text.trim() === '' ? Number.NaN : Number(text);
    try {
      checkLimit(key, value);
    } catch {
      throw new ConfigError(
        `invalid metadata ${name}="${text}": expected a number of at least ${MINIMUM[key]}`,
      );
    }
    out[key] = value;
  }
  return out;
}
