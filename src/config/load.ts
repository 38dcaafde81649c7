import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { checkConfig } from './checks.ts';
import { didYouMean } from './closest-name.ts';
import { applyOverride, deepMerge, parseOverride } from './overrides.ts';
import { loadPlugins } from './plugins.ts';
import { buildConfigSchema, type Config, configSchema, REFUSED_NAMES } from './schema.ts';

/** Keys that take new entries (`+llm.extra_body.top_k=20`): free-form maps passed on as they are. */
export const OPEN_SECTIONS = ['llm.extra_body', 'trainer.tags'];

function at(tree: unknown, path: readonly PropertyKey[]): unknown {
  let node = tree;
  for (const seg of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[seg];
  return node;
}

/**
 * One line per problem, each naming the key, the value given, the valid choices and, for a typo, the
 * nearest valid name — from the schema itself, so the message lists exactly what the registries offer.
 */
function formatIssues(error: z.ZodError, tree: unknown): string {
  const defaults = configSchema.parse({});
  return error.issues
    .flatMap((i) => {
      const where = i.path.length ? i.path.join('.') : '(root)';
      if (i.code === 'unrecognized_keys') {
        const known = Object.keys((at(defaults, i.path) as object | undefined) ?? {});
        const prefix = i.path.length ? `${where}.` : '';
        return i.keys.map(
          (k) =>
            `  ${prefix}${k}: unknown key${didYouMean(k, known)} (known in ${i.path.length ? where : 'the top level'}: ${known.join(', ')}; new keys go only under ${OPEN_SECTIONS.join(', ')})`,
        );
      }
      if (i.code === 'invalid_value') {
        const given = String(at(tree, i.path));
        const valid = i.values.map(String);
        const refused = REFUSED_NAMES[where]?.[given];
        if (refused) return [`  ${where}: "${given}" is not available: ${refused}`];
        return [
          `  ${where}: unknown value "${given}"${didYouMean(given, valid)} (valid: ${valid.join(', ')})`,
        ];
      }
      return [`  ${where}: ${i.message}`];
    })
    .join('\n');
}

export function readYamlFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`config file ${path}: cannot read it (${(e as Error).message})`, { cause: e });
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigError(`config file ${path}: not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${path}: expected a mapping at the top level`);
  }
  return doc as Record<string, unknown>;
}

/** Defaults, then each YAML file in order, then dotted overrides, not yet validated. */
function mergedTree(files: readonly string[], overrides: readonly string[]): Record<string, unknown> {
  let tree = configSchema.parse({}) as unknown as Record<string, unknown>;
  for (const f of files) {
    // A run directory's config.yaml records the version that wrote it; that is not a setting.
    const { sandgym_version: _, ...doc } = readYamlFile(f);
    tree = deepMerge(tree, doc) as Record<string, unknown>;
  }
  for (const o of overrides) applyOverride(tree, parseOverride(o));
  return tree;
}

/**
 * `loadConfig` after loading the config's `plugins`, whose names (say an advantage estimator) the config
 * may then use. What the CLI calls.
 */
export async function loadConfigWithPlugins(
  files: readonly string[] = [],
  overrides: readonly string[] = [],
): Promise<Config> {
  const listed = mergedTree(files, overrides).plugins;
  if (!Array.isArray(listed) || listed.some((p) => typeof p !== 'string')) {
    throw new ConfigError('invalid config:\n  plugins: expected a list of module paths');
  }
  await loadPlugins(listed as string[]);
  return loadConfig(files, overrides);
}

/**
 * Defaults, then each YAML file in order, then dotted overrides; validated as a whole (schema, then the
 * cross-field checks) so problems are reported together, before anything starts.
 */
export function loadConfig(files: readonly string[] = [], overrides: readonly string[] = []): Config {
  const tree = mergedTree(files, overrides);
  const parsed = buildConfigSchema().safeParse(tree);
  if (!parsed.success) {
    throw new ConfigError(`invalid config:\n${formatIssues(parsed.error, tree)}`);
  }
  checkConfig(parsed.data);
  return parsed.data;
}
