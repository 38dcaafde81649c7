import type { ToolSpec } from '../llm/types.ts';

/**
 * Checks a tool call's arguments against the tool's JSON schema: the subset our tools declare (an object of
 * string, integer, number, boolean, or array-of-those properties, with `enum`, `required` and no extra keys).
 *
 * Values arrive as JSON (function calling) or all as strings (XML-style `<parameter=x>5</parameter>`), so a
 * string is accepted where the schema asks for a number, a boolean or an array when it spells one exactly
 * (`"5"`, `"true"`, `"[1, 10]"`). `null` counts as absent, as strict-mode function calling sends it for an
 * optional parameter the model leaves out.
 */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; problems: string[] };

interface PropertySchema {
  type?: string;
  enum?: readonly unknown[];
  items?: PropertySchema;
  description?: string;
}

export function checkArguments(spec: ToolSpec, raw: unknown): ArgumentCheck {
  const parsed = parseObject(raw);
  if (typeof parsed === 'string') return { ok: false, problems: [parsed] };
  const properties = (spec.function.parameters.properties ?? {}) as Record<string, PropertySchema>;
  const required = (spec.function.parameters.required ?? []) as string[];
  const problems: string[] = [];
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const schema = properties[key];
    if (!schema) {
      problems.push(`unknown argument "${key}"`);
      continue;
    }
    if (value === null || value === undefined) continue;
    const checked = checkValue(value, schema);
    if (checked.ok) args[key] = checked.value;
    else problems.push(`argument "${key}" ${checked.problem}`);
  }
  for (const key of required) {
    if (!(key in args) && !problems.some((p) => p.startsWith(`argument "${key}"`))) {
      problems.push(`missing required argument "${key}"`);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, args };
}

function parseObject(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return {};
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return `arguments are not valid JSON (${(e as Error).message})`;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'arguments must be a JSON object of named parameters';
  }
  return value as Record<string, unknown>;
}

type ValueCheck = { ok: true; value: unknown } | { ok: false; problem: string };

function checkValue(value: unknown, schema: PropertySchema): ValueCheck {
  const coerced = coerce(value, schema.type);
  const problem = typeProblem(coerced, schema);
  if (problem) return { ok: false, problem };
  if (schema.enum && !schema.enum.includes(coerced)) {
    return { ok: false, problem: `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` };
  }
  return { ok: true, value: coerced };
}

function typeProblem(value: unknown, schema: PropertySchema): string | undefined {
  const expected = schema.type;
  switch (expected) {
    case undefined:
      return undefined;
    case 'string':
      return typeof value === 'string' ? undefined : `must be a string, got ${describe(value)}`;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : `must be an integer, got ${describe(value)}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `must be a number, got ${describe(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, got ${describe(value)}`;
    case 'array': {
      if (!Array.isArray(value)) return `must be an array, got ${describe(value)}`;
      const item = schema.items;
      if (!item) return undefined;
      for (const [i, v] of value.entries()) {
        const p = typeProblem(v, item);
        if (p) return `item ${i} ${p}`;
      }
      return undefined;
    }
    default:
      return `has an unsupported schema type "${expected}"`;
  }
}

/** Strings that spell exactly the wanted type become it; anything else is left for the type check. */
function coerce(value: unknown, type: string | undefined): unknown {
  if (typeof value !== 'string') return value;
  const s = value.trim();
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (type === 'boolean' && (s === 'true' || s === 'false')) return s === 'true';
  if (type === 'array' && s.startsWith('[')) {
    try {
      return JSON.parse(s);
    } catch {
      return value;
    }
  }
  return value;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The tool's parameters in one short block, for a corrective observation. */
export function describeParameters(spec: ToolSpec): string {
  const properties = (spec.function.parameters.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set((spec.function.parameters.required ?? []) as string[]);
  const lines = Object.entries(properties).map(([name, p]) => {
    const type = p.type === 'array' && p.items?.type ? `array of ${p.items.type}` : (p.type ?? 'any');
    const choices = p.enum ? `, one of ${p.enum.map((e) => JSON.stringify(e)).join(' | ')}` : '';
    return `  ${name} (${type}, ${required.has(name) ? 'required' : 'optional'}${choices})`;
  });
  return `${spec.function.name}(\n${lines.join('\n')}\n)`;
}
