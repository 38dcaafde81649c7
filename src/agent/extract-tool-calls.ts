import type { SampleResult } from '../llm/types.ts';

/** A tool call as the loop runs it; `error` set when the call was written but cannot be run. */
export interface ParsedCall {
  id?: string;
  name: string;
  arguments: unknown;
  /** The arguments as the model wrote them (kept raw for the trajectory). */
  rawArguments: string;
  error?: string;
}

/**
 * The calls of a turn: OpenAI `tool_calls` when the server parsed them, otherwise markup in the text —
 * `<function=name><parameter=key>value</parameter></function>` (R2E-Gym/SWE-agent XML) or
 * `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Qwen/Hermes).
 */
export function extractToolCalls(result: SampleResult, format: 'function_calling' | 'xml'): ParsedCall[] {
  const native = result.message.tool_calls ?? [];
  if (native.length > 0) {
    return native.map((c) => {
      const raw = c.function.arguments;
      try {
        const args = raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
          return {
            id: c.id,
            name: c.function.name,
            arguments: {},
            rawArguments: raw,
            error: 'arguments must be a JSON object',
          };
        }
        return { id: c.id, name: c.function.name, arguments: args, rawArguments: raw };
      } catch (e) {
        return {
          id: c.id,
          name: c.function.name,
          arguments: {},
          rawArguments: raw,
          error: `arguments are not valid JSON (${(e as Error).message})`,
        };
      }
    });
  }
  if (
    format === 'xml' ||
    result.message.content.includes('<function=') ||
    result.message.content.includes('<tool_call>')
  ) {
    return parseMarkupCalls(result.message.content);
  }
  return [];
}

const FUNCTION_RE = /<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER_RE = /<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/g;
const TOOL_CALL_RE = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

export function parseMarkupCalls(text: string): ParsedCall[] {
  const calls: ParsedCall[] = [];
  for (const m of text.matchAll(FUNCTION_RE)) {
    const args: Record<string, string> = {};
    for (const p of m[2]!.matchAll(PARAMETER_RE)) args[p[1]!] = trimOneNewline(p[2]!);
    const call: ParsedCall = { name: m[1]!, arguments: args, rawArguments: JSON.stringify(args) };
    if (!m[0].endsWith('</function>')) call.error = 'the <function=…> block is not closed with </function>';
    calls.push(call);
  }
  for (const m of text.matchAll(TOOL_CALL_RE)) {
    const raw = m[1]!.trim();
    try {
      const obj = JSON.parse(raw) as { name?: unknown; arguments?: unknown };
      if (typeof obj.name !== 'string') throw new Error('missing "name"');
      const args =
        typeof obj.arguments === 'string' ? (JSON.parse(obj.arguments) as unknown) : (obj.arguments ?? {});
      calls.push({ name: obj.name, arguments: args, rawArguments: JSON.stringify(args) });
    } catch (e) {
      calls.push({
        name: 'unknown',
        arguments: {},
        rawArguments: raw,
        error: `<tool_call> is not valid JSON with a name (${(e as Error).message})`,
      });
    }
  }
  return calls;
}

/** Values usually sit on their own lines between the tags; the newlines around them are markup, not data. */
function trimOneNewline(s: string): string {
  return s.replace(/^\n/, '').replace(/\n$/, '');
}
