export type { AdvantageInput } from '../rl/index.ts';
export { checkConfig, configProblems, totalSandboxes } from './checks.ts';
export { renderDefaultsYaml } from './defaults-yaml.ts';
export { loadConfig, loadConfigWithPlugins, readYamlFile } from './load.ts';
export { applyOverride, deepMerge, parseOverride } from './overrides.ts';
export { loadPlugins, type PluginApi } from './plugins.ts';
export { buildConfigSchema, type Config, configSchema, type SandboxConfig } from './schema.ts';
