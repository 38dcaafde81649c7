import { randomUUID } from 'node:crypto';
import type { JsonSchema, ToolCall, ToolSpec } from './types.ts';

export interface ParsedToolCalls {
  /** The text outside tool-call markup, trimmed. */
  content: string;
  toolCalls: ToolCall[];
  /** One sentence per call that was written but could not be read; feed them back to the model. */
  errors: string[];
}

export interface ParseToolCallsOptions {
  /** Declared tools: XML parameter values are converted to the JSON types their schemas declare. */
  tools?: ToolSpec[];
  /** Ids for the calls; default `call_` and 8 random hex digits. */
  newId?: () => string;
}

const TOOL_CALL_BLOCK = /<tool_call>([\s\S]*?)(<\/tool_call>|$)/g;
const FUNCTION_BLOCK = /<function=([^>\n]*)>([\s\S]*?)(<\/function>|$)/g;
const PARAMETER_BLOCK = /<parameter=([^>\n]*)>([\s\S]*?)(<\/parameter>|$)/g;

/**
 * Tool calls written in a completion's text, in the two syntaxes open models use:
 * - Hermes/Qwen JSON: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`;
 * - XML, bare (R2E-Gym, SWE-agent) or inside `<tool_call>` (Qwen3-Coder):
 *   `<function=f><parameter=x>value</parameter></function>`.
 * Arguments come out as JSON text, as OpenAI sends them. A malformed or unclosed call is reported in
 * `errors` and left out, never thrown: a model's mistake is an observation, not a crash.
 */
export function parseToolCalls(text: string, options: ParseToolCallsOptions = {}): ParsedToolCalls {
  const newId = options.newId ?? (() => `call_${randomUUID().replaceAll('-', '').slice(0, 8)}`);
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const errors: string[] = [];
  const schemas = new Map((options.tools ?? []).map((t) => [t.function.name, t.function.parameters]));

  const outside = text.replace(TOOL_CALL_BLOCK, (_match, body: string, close: string) => {
    if (!close)
      errors.push('a <tool_call> block is not closed with </tool_call> (was the completion cut off?)');
    else if (body.trim().startsWith('{')) readJsonCall(body, calls, errors);
    else if (body.includes('<function=')) readXmlCalls(body, schemas, calls, errors);
    else errors.push(`a <tool_call> block holds neither JSON nor <function=…>: ${clip(body)}`);
    return '';
  });
  const content = outside.replace(FUNCTION_BLOCK, (match) => {
    readXmlCalls(match, schemas, calls, errors);
    return '';
  });
  return {
    content: content.trim(),
    toolCalls: calls.map((c) => ({
      id: newId(),
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    })),
    errors,
  };
}

function readJsonCall(
  body: string,
  calls: { name: string; args: Record<string, unknown> }[],
  errors: string[],
): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    errors.push(`a <tool_call> is not valid JSON (${(e as Error).message}): ${clip(body)}`);
    return;
  }
  const call = parsed as { name?: unknown; arguments?: unknown; parameters?: unknown };
  if (typeof call?.name !== 'string' || !call.name) {
    errors.push(`a <tool_call> has no "name": ${clip(body)}`);
    return;
  }
  let args = call.arguments ?? call.parameters ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      errors.push(
        `the arguments of the ${call.name} call are a string that is not JSON: ${clip(args as string)}`,
      );
      return;
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    errors.push(
      `the arguments of the ${call.name} call are not a JSON object: ${clip(JSON.stringify(args))}`,
    );
    return;
  }
  calls.push({ name: call.name, args: args as Record<string, unknown> });
}

function readXmlCalls(
  body: string,
  schemas: Map<string, JsonSchema>,
  calls: { name: string; args: Record<string, unknown> }[],
  errors: string[],
): void {
  for (const [, rawName = '', inner = '', close] of body.matchAll(FUNCTION_BLOCK)) {
    const name = rawName.trim();
    if (!close) {
      errors.push(`<function=${name}> is not closed with </function>`);
      continue;
    }
    if (!name) {
      errors.push('a <function=…> has an empty name');
      continue;
    }
    const args: Record<string, unknown> = {};
    let ok = true;
    for (const [, rawParam = '', rawValue = '', paramClose] of inner.matchAll(PARAMETER_BLOCK)) {
      if (!paramClose) {
        errors.push(`<parameter=${rawParam.trim()}> of the ${name} call is not closed with </parameter>`);
        ok = false;
        break;
      }
      const param = rawParam.trim();
      args[param] = convertValue(trimOneNewline(rawValue), propertyType(schemas.get(name), param));
    }
    if (ok) calls.push({ name, args });
  }
}

/** Models put each value on its own lines; the one newline after the tag and before the close is markup. */
function trimOneNewline(value: string): string {
  return value.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

function propertyType(schema: JsonSchema | undefined, param: string): unknown {
  const properties = schema?.properties as Record<string, { type?: unknown }> | undefined;
  return properties?.[param]?.type;
}

/** XML values are text; give them the JSON type the tool declares, when the text is one. */
function convertValue(value: string, type: unknown): unknown {
  const t = value.trim();
  switch (type) {
    case 'integer':
      return /^-?\d+$/.test(t) ? Number(t) : value;
    case 'number':
      return t !== '' && Number.isFinite(Number(t)) ? Number(t) : value;
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : value;
    case 'object':
    case 'array':
      try {
        return JSON.parse(t);
      } catch {
        return value;
      }
    default:
      return value;
  }
}

function clip(text: string): string {
  const flat = text.trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
