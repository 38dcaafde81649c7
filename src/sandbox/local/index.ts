import { ConfigError } from '../../errors.ts';
import { resolveHome } from '../images/home.ts';
import type { ProviderOptions } from '../index.ts';
import { currentRunId } from '../owner.ts';
import type { SandboxProvider } from '../types.ts';
import { prepareHelper } from './helper-binary.ts';
import { findHostTools } from './host-tools.ts';
import { cgroupParent, chooseLimitDriver, type LimitChoice } from './limit-drivers.ts';
import { LocalProvider } from './local-provider.ts';

export { LocalProvider } from './local-provider.ts';
export { LocalSandbox } from './local-sandbox.ts';

/**
 * Options of the local provider, under `ProviderOptions.options`:
 * - `limits`: `auto` (default: cgroup v2, else v1, else rlimits), or force `cgroup-v1`, `cgroup-v2`, `rlimit`.
 * - `importFromDocker`: copy images missing locally from a Docker engine when one answers (default true).
 */
export interface LocalOptions {
  limits?: LimitChoice;
  importFromDocker?: boolean;
}

/** The local provider, after checking that this host can run it (root, bwrap, catatonit, a C compiler). */
export async function createLocalProvider(options: ProviderOptions = {}): Promise<SandboxProvider> {
  return createLocal(options);
}

/** Same as `createLocalProvider`, typed as the concrete provider (for tests, benchmarks and gc). */
export async function createLocal(options: ProviderOptions = {}): Promise<LocalProvider> {
  const local = parseLocalOptions(options.options ?? {});
  const home = resolveHome(options.home);
  const tools = { ...findHostTools(process.env.PATH), helper: await prepareHelper(home) };
  return new LocalProvider({
    home,
    runId: options.runId ?? currentRunId(),
    tools,
    limitDriver: chooseLimitDriver(local.limits ?? 'auto', cgroupParent(home)),
    importFromDocker: local.importFromDocker ?? true,
  });
}

const LIMIT_CHOICES: readonly LimitChoice[] = ['auto', 'cgroup-v1', 'cgroup-v2', 'rlimit'];

function parseLocalOptions(raw: Record<string, unknown>): LocalOptions {
  const valid = ['limits', 'importFromDocker'];
  for (const key of Object.keys(raw)) {
    if (!valid.includes(key)) {
      throw new ConfigError(`unknown local provider option "${key}"; valid options: ${valid.join(', ')}`);
    }
  }
  if (raw.limits !== undefined && !LIMIT_CHOICES.includes(raw.limits as LimitChoice)) {
    throw new ConfigError(`local provider option limits must be one of ${LIMIT_CHOICES.join(', ')}`);
  }
  if (raw.importFromDocker !== undefined && typeof raw.importFromDocker !== 'boolean') {
    throw new ConfigError('local provider option importFromDocker must be true or false');
  }
  return raw as LocalOptions;
}
