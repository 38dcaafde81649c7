import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { checkConfig } from './checks.ts';
import { applyOverride, deepMerge, parseOverride } from './overrides.ts';
import { type Config, configSchema } from './schema.ts';

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : '(root)';
      return `  ${where}: ${i.message}`;
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

/**
 * Defaults, then each YAML file in order, then dotted overrides; validated as a whole (schema, then the
 * cross-field checks) so problems are reported together, before anything starts.
 */
export function loadConfig(files: readonly string[] = [], overrides: readonly string[] = []): Config {
  let tree = configSchema.parse({}) as unknown as Record<string, unknown>;
  for (const f of files) {
    // A run directory's config.yaml records the version that wrote it; that is not a setting.
    const { sandgym_version: _, ...doc } = readYamlFile(f);
    tree = deepMerge(tree, doc) as Record<string, unknown>;
  }
  for (const o of overrides) applyOverride(tree, parseOverride(o));
  const parsed = configSchema.safeParse(tree);
  if (!parsed.success) {
    throw new ConfigError(`invalid config:\n${formatIssues(parsed.error)}`);
  }
  checkConfig(parsed.data);
  return parsed.data;
}
