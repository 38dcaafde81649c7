import type { FinishReason } from './types.ts';

/**
 * A server's finish reason in sandgym's words. OpenAI says stop/length/tool_calls/content_filter
 * (and the older function_call); vLLM and SGLang add `abort`; other compatible servers say `eos` or
 * `max_tokens`. Anything else, a missing reason included, is `error`: an unexplained end is an
 * infrastructure fault, which masks the episode instead of scoring it.
 *
 * A `stop` with tool calls in the message becomes `tool_calls`, since some servers parse calls but
 * still report `stop`.
 */
export function mapFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'error';
  }
}
