import { parseToolCalls } from '../llm/index.ts';
import type { SampleResult, ToolSpec } from '../llm/types.ts';

/** A tool call as the loop runs it; `error` set when the call was written but cannot be run. */
export interface ParsedCall {
  id?: string;
  name: string;
  arguments: unknown;
  /** The arguments as the model wrote them (kept raw for the trajectory). */
  rawArguments: string;
  error?: string;
}

export interface TurnCalls {
  calls: ParsedCall[];
  /** Calls that were written but could not be read at all, one sentence each. */
  errors: string[];
}

/**
 * The calls of a turn: OpenAI `tool_calls` when the server (or a token-level sampler) parsed them, otherwise
 * markup in the reply's text — `<function=…>` XML or Hermes `<tool_call>` JSON.
 */
export function extractToolCalls(result: SampleResult, tools: ToolSpec[]): TurnCalls {
  const native = result.message.tool_calls ?? [];
  if (native.length > 0 || (result.toolCallErrors?.length ?? 0) > 0) {
    return {
      calls: native.map((c) => readArguments(c.id, c.function.name, c.function.arguments)),
      errors: result.toolCallErrors ?? [],
    };
  }
  const parsed = parseToolCalls(result.message.content, { tools });
  return {
    calls: parsed.toolCalls.map((c) => readArguments(c.id, c.function.name, c.function.arguments)),
    errors: parsed.errors,
  };
}

function readArguments(id: string, name: string, raw: string): ParsedCall {
  try {
    const args = raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { id, name, arguments: {}, rawArguments: raw, error: 'arguments must be a JSON object' };
    }
    return { id, name, arguments: args, rawArguments: raw };
  } catch (e) {
    return {
      id,
      name,
      arguments: {},
      rawArguments: raw,
      error: `arguments are not valid JSON (${(e as Error).message})`,
    };
  }
}
