import { ConfigError } from '../errors.ts';

/**
 * Look a variant up by its config name. An unknown name is a configuration mistake, so the error lists
 * every valid name rather than letting a typo fall through to a default.
 */
export function lookupByName<T>(kind: string, table: Readonly<Record<string, T>>, name: string): T {
  if (Object.hasOwn(table, name)) return table[name] as T;
  const valid = Object.keys(table)
    .map((n) => `"${n}"`)
    .join(', ');
  throw new ConfigError(`unknown ${kind} "${name}"; valid names are ${valid}`);
}
