export { loadConfig, readYamlFile } from './load.ts';
export { applyOverride, deepMerge, parseOverride } from './overrides.ts';
export { type Config, configSchema, type SandboxConfig } from './schema.ts';
