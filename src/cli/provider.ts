import type { Config } from '../config/index.ts';
import { e2bOptionsFromConfig } from '../sandbox/e2b/e2b-options.ts';
import { createProvider, type ProviderOptions, type SandboxProvider } from '../sandbox/index.ts';

/** Provider settings from the config: the e2b provider's domain, URLs and template map. */
export function providerOptions(name: string, config: Config): ProviderOptions {
  return name === 'e2b' ? { options: e2bOptionsFromConfig(config.sandbox.e2b) } : {};
}

/** The sandbox provider a command runs on, as `sandbox.provider` and its section say. */
export function providerFor(config: Config): Promise<SandboxProvider> {
  return createProvider(config.sandbox.provider, providerOptions(config.sandbox.provider, config));
}
