import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, errorMessage } from '../errors.ts';
import { registerAdvantageEstimator } from '../rl/index.ts';

/**
 * What a plugin's `register(sandgym)` receives: the registries it may add to. Passed in rather than
 * imported by the plugin, so a plugin outside this repository needs no path to sandgym's sources.
 */
export interface PluginApi {
  registerAdvantageEstimator: typeof registerAdvantageEstimator;
}

const API: PluginApi = { registerAdvantageEstimator };
const loaded = new Set<string>();

/**
 * Imports each module (a path, relative to the working directory) once and calls its
 * `register(sandgym)`. Anything wrong is a ConfigError naming the plugin: it fails at load, not mid-run.
 */
export async function loadPlugins(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const file = resolve(path);
    if (loaded.has(file)) continue;
    let mod: { register?: unknown };
    try {
      mod = (await import(pathToFileURL(file).href)) as { register?: unknown };
    } catch (e) {
      throw new ConfigError(`plugins: ${path} cannot be loaded: ${errorMessage(e)}`, { cause: e });
    }
    if (typeof mod.register !== 'function') {
      throw new ConfigError(`plugins: ${path} exports no register(sandgym) function`);
    }
    try {
      await (mod.register as (api: PluginApi) => unknown)(API);
    } catch (e) {
      throw new ConfigError(`plugins: ${path}: register() failed: ${errorMessage(e)}`, { cause: e });
    }
    loaded.add(file);
  }
}
