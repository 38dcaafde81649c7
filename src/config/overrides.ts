import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../errors.ts';
import { didYouMean } from './closest-name.ts';

/**
 * Dotted overrides as the seeds write them: `rollout.n=8` sets an existing key, `+new.key=v` adds one
 * that the defaults do not have. Values are YAML scalars or flow collections (`[1, 2]`, `{a: 1}`, `null`).
 */
export interface Override {
  path: string[];
  value: unknown;
  /** `+key=v`: the key may be new. */
  add: boolean;
}

export function parseOverride(text: string): Override {
  const eq = text.indexOf('=');
  if (eq <= 0) {
    throw new ConfigError(`override "${text}": expected key=value, e.g. rollout.n=8`);
  }
  let key = text.slice(0, eq).trim();
  const add = key.startsWith('+');
  if (add) key = key.slice(1);
  const path = key.split('.');
  if (path.some((p) => p === '')) {
    throw new ConfigError(`override "${text}": empty segment in key "${key}"`);
  }
  const raw = text.slice(eq + 1);
  let value: unknown;
  try {
    value = raw === '' ? '' : parseYaml(raw);
  } catch (e) {
    throw new ConfigError(`override "${text}": value is not valid YAML`, { cause: e });
  }
  return { path, value, add };
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Apply an override to a plain object tree, in place. Unknown keys need the `+` prefix. */
export function applyOverride(tree: Record<string, unknown>, o: Override): void {
  let node: Record<string, unknown> = tree;
  for (const [i, seg] of o.path.entries()) {
    const last = i === o.path.length - 1;
    const where = o.path.slice(0, i + 1).join('.');
    if (!(seg in node) && !o.add) {
      const known = Object.keys(node).sort();
      throw new ConfigError(
        `override "${o.path.join('.')}": unknown key "${where}"${didYouMean(seg, known)} (known: ${known.join(', ') || 'none yet'}); use +${o.path.join('.')}=… to add a new key`,
      );
    }
    if (last) {
      node[seg] = o.value;
      return;
    }
    if (!(seg in node)) node[seg] = {};
    const next = node[seg];
    if (!isPlainObject(next)) {
      throw new ConfigError(`override "${o.path.join('.')}": "${where}" is a value, not a section`);
    }
    node = next;
  }
}

/** Deep merge of `over` into `base` (objects merge, everything else replaces); returns a new tree. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}
