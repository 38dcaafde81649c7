import { readFileSync } from 'node:fs';
import type { AgsApi } from '../../sandbox/ags/index.ts';

/** Field → type of the AGS models in Tencent Cloud's published SDK (see the fixture's `_source`). */
const MODELS = JSON.parse(
  readFileSync(new URL('../ags/fixtures/ags-models-2025-09-20.json', import.meta.url), 'utf8'),
) as Record<string, Record<string, string>>;

/**
 * Where `value` departs from the model `type`: fields the model lacks, required fields missing, values of
 * the wrong kind; nested models are checked when the fixture has them. Empty when it conforms.
 */
export function modelErrors(value: unknown, type: string, at = type): string[] {
  const optional = type.startsWith('?');
  const t = optional ? type.slice(1) : type;
  if (value === undefined) return optional ? [] : [`${at}: missing`];
  const list = /^Array<(.+)>$/.exec(t);
  if (list) {
    return Array.isArray(value)
      ? value.flatMap((v, i) => modelErrors(v, list[1]!, `${at}[${i}]`))
      : [`${at}: not a list`];
  }
  if (t === 'string' || t === 'number' || t === 'boolean')
    return typeof value === t ? [] : [`${at}: not a ${t}`];
  const model = MODELS[t];
  if (!model) return []; // a model the fixture does not hold (unused by sandgym)
  if (typeof value !== 'object' || value === null) return [`${at}: not an object`];
  const errors = Object.keys(value)
    .filter((k) => !(k in model))
    .map((k) => `${at}.${k}: not a field of ${t}`);
  for (const [field, ft] of Object.entries(model)) {
    errors.push(...modelErrors((value as Record<string, unknown>)[field], ft, `${at}.${field}`));
  }
  return errors;
}

/** An AgsApi that checks every request and answer against the published models. */
export function modelCheckingApi(api: AgsApi, errors: string[]): AgsApi {
  return {
    async call(action, params) {
      errors.push(...modelErrors(params, `${action}Request`));
      const answer = await api.call(action, params);
      errors.push(...modelErrors(answer, `${action}Response`));
      return answer as never;
    },
  };
}
