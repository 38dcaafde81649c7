export { checkConfig, configProblems, totalSandboxes } from './checks.ts';
export { renderDefaultsYaml } from './defaults-yaml.ts';
export { loadConfig, readYamlFile } from './load.ts';
export { applyOverride, deepMerge, parseOverride } from './overrides.ts';
export { type Config, configSchema, type SandboxConfig } from './schema.ts';
