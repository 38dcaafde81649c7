import { ConfigError } from '../errors.ts';
import type { SandboxProvider } from './types.ts';

export { currentRunId, isOrphan, runLiveness } from './owner.ts';
export * from './types.ts';

/** Settings every provider understands; provider-only knobs go in their own bag. */
export interface ProviderOptions {
  /** State directory (image cache, sandbox dirs); default `$SANDGYM_HOME` or `~/.cache/sandgym`. */
  home?: string;
  /** Owner run id written on every sandbox; default: this process. */
  runId?: string;
  /** Provider-specific options, e.g. `{ socketPath }` for docker, `{ domain, apiKey }` for e2b. */
  options?: Record<string, unknown>;
}

export const PROVIDERS = ['local', 'docker', 'e2b'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** A provider by name; its module loads only when asked for, so `local` never needs dockerode. */
export async function createProvider(name: string, options: ProviderOptions = {}): Promise<SandboxProvider> {
  switch (name) {
    case 'local':
      return (await import('./local/index.ts')).createLocalProvider(options);
    case 'docker':
      return (await import('./docker/index.ts')).createDockerProvider(options);
    case 'e2b':
      return (await import('./e2b/index.ts')).createE2BProvider(options);
    default:
      throw new ConfigError(`unknown sandbox provider "${name}"; valid providers: ${PROVIDERS.join(', ')}`);
  }
}
