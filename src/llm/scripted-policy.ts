import { ConfigError } from '../errors.ts';
import type { ChatMessage, Sampler, ToolSpec } from './types.ts';

/** A request as the scripted server hands it to a policy. `body` is the JSON as it arrived. */
export type ScriptedRequest =
  | {
      endpoint: 'chat';
      model: string;
      messages: ChatMessage[];
      tools: ToolSpec[];
      maxTokens: number | undefined;
      stream: boolean;
      body: Record<string, unknown>;
    }
  | {
      endpoint: 'completion';
      model: string;
      promptIds: number[];
      /** The prompt decoded, when the server was given a tokenizer. */
      promptText: string | undefined;
      maxTokens: number;
      body: Record<string, unknown>;
    };

/** What the scripted model "generates". */
export interface ScriptedReply {
  /** Chat: the assistant's text. Completion: the text to encode with the server's tokenizer. */
  content?: string;
  /** Chat only: the reasoning, sent apart as `reasoning_content`, as vLLM's reasoning parsers do. */
  reasoning?: string;
  /** Chat only: structured tool calls (`arguments` as JSON text or an object). */
  toolCalls?: { name: string; arguments: string | Record<string, unknown>; id?: string }[];
  /** Completion: the ids to return instead of encoding `content`. Chat: returned when asked. */
  tokenIds?: number[];
  /** One per token id; default 0 (a scripted policy is certain of what it says). */
  logprobs?: number[];
  /** Chat only: `prompt_token_ids` to return when asked. */
  promptTokenIds?: number[];
  /**
   * Default: `tool_calls` when there are tool calls, else `stop`; a completion cut at `max_tokens`
   * reports `length`.
   */
  finishReason?: string;
}

/** A failure the scripted server plays instead of a reply. */
export type ScriptedFault =
  /** HTTP 429 with `Retry-After` (whole seconds) and, when given, `retry-after-ms`. */
  | { fault: 'rate-limit'; retryAfterS?: number; retryAfterMs?: number }
  /** Any error status with an OpenAI-style error body; default 500. */
  | { fault: 'http-error'; status?: number; message?: string }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { fault: 'hang' }
  /** HTTP 200 with a body cut in the middle of the JSON. */
  | { fault: 'malformed-json' }
  /** Closes the socket without an answer; a stream is cut after its first event. */
  | { fault: 'drop-connection' };

/** Decides each answer. `callIndex` counts the requests this server has received, from 0. */
export type ScriptedPolicy = (
  request: ScriptedRequest,
  callIndex: number,
) => ScriptedReply | ScriptedFault | Promise<ScriptedReply | ScriptedFault>;

export function isScriptedFault(x: ScriptedReply | ScriptedFault): x is ScriptedFault {
  return 'fault' in x;
}

/**
 * Plays `steps` in order, one per request, then repeats the last one. Lets a test script "first a
 * 429, then this reply" without writing a policy function.
 */
export function sequencePolicy(steps: readonly (ScriptedReply | ScriptedFault)[]): ScriptedPolicy {
  if (steps.length === 0) throw new ConfigError('sequencePolicy: give at least one reply or fault');
  return (_request, callIndex) => steps[Math.min(callIndex, steps.length - 1)]!;
}

/**
 * Plays a `Sampler` behind the chat endpoint: the agent's built-in policies (oracle, noop, malformed)
 * then reach the loop through real HTTP. Completion requests are refused: a sampler needs messages,
 * and a token prompt does not give them back.
 */
export function samplerPolicy(sampler: Sampler): ScriptedPolicy {
  return async (request) => {
    if (request.endpoint !== 'chat') {
      return {
        fault: 'http-error',
        status: 400,
        message: 'this scripted policy answers /v1/chat/completions only',
      };
    }
    const result = await sampler.sample({
      messages: request.messages,
      ...(request.tools.length ? { tools: request.tools } : {}),
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    });
    return {
      content: result.message.content,
      ...(result.message.tool_calls?.length
        ? {
            toolCalls: result.message.tool_calls.map((c) => ({
              id: c.id,
              name: c.function.name,
              arguments: c.function.arguments,
            })),
          }
        : {}),
      ...(result.rawFinishReason !== undefined ? { finishReason: result.rawFinishReason } : {}),
    };
  };
}
