/**
 * The sampler contract: what the agent loop asks an LLM for and what it gets back. Messages and tools
 * follow the OpenAI chat-completions shapes so any compatible server, and any chat template, can take
 * them as they are.
 */

/** A function call the assistant asked for. `arguments` is a JSON text, as OpenAI sends it. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  content: string;
  /** Assistant only: the calls it made this turn. */
  tool_calls?: ToolCall[];
  /** Tool only: the id of the call this message answers. */
  tool_call_id?: string;
  /** Tool only: the tool's name (some templates render it). */
  name?: string;
  /**
   * Assistant only: the model's reasoning (Qwen3's `<think>` block), apart from `content`, as vLLM's
   * reasoning parsers and transformers' templates name it.
   */
  reasoning_content?: string;
}

export type AssistantMessage = ChatMessage & { role: 'assistant' };

/** A JSON Schema object, as function-calling declares parameters. */
export type JsonSchema = { [key: string]: unknown };

/** A tool the model may call, in the OpenAI function-calling schema. */
export interface ToolSpec {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters: JsonSchema;
    strict?: boolean;
  };
}

export interface SampleRequest {
  /** The whole conversation so far; a token-level sampler checks that it extends the previous turn's. */
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Cap on this turn's completion tokens; a token-level sampler also caps it by the budgets left. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  signal?: AbortSignal;
}

/**
 * Why a completion ended, the same words for every backend; the server's own word is kept beside it
 * as `rawFinishReason`.
 */
export type FinishReason =
  /** The model ended its turn (end-of-turn token or a stop string). */
  | 'stop'
  /** The completion hit its token cap, or no request was sent because a budget was spent (`overflow`). */
  | 'length'
  /** The model ended its turn with one or more tool calls. */
  | 'tool_calls'
  /** The provider withheld the completion. */
  | 'content_filter'
  /** The server aborted or reported something unknown: an infrastructure fault, never a policy outcome. */
  | 'error';

/** Tokens of one turn exactly as the sampler sent and received them: kept, never re-derived. */
export interface TurnTokens {
  /** The whole prompt of this turn; from turn 1 on it extends the previous prompt plus completion. */
  promptIds: number[];
  completionIds: number[];
  /** Log-probability the sampler gave each completion token; same length as `completionIds`. */
  completionLogprobs: number[];
}

/** Which budget stopped a turn before anything was sent. */
export type Overflow =
  /** The prompt alone fills the model's context window. */
  | 'context'
  /** The trajectory's token budget is spent. */
  | 'token_budget';

export interface SampleResult {
  /** The assistant's reply: text outside tool calls as `content`, calls as `tool_calls`. */
  message: AssistantMessage;
  finishReason: FinishReason;
  /** The server's own finish reason (or the overflow kind when nothing was sent). */
  rawFinishReason: string | undefined;
  usage: { promptTokens: number; completionTokens: number };
  /** Present when the server gave token ids and logprobs (always for a token-level sampler). */
  tokens?: TurnTokens;
  /** The completion text as generated, tool-call markup included, when the sampler parsed it itself. */
  rawText?: string;
  /** Tool calls that were written but could not be parsed, one message each, for a corrective observation. */
  toolCallErrors?: string[];
  /** Set when no request was sent because the prompt or the trajectory had no room left. */
  overflow?: Overflow;
  /** Wall time of the call, retries included. */
  latencyMs: number;
}

/**
 * Something that samples assistant turns. A sampler that keeps token state belongs to one trajectory:
 * call `session()` for each new episode to get one with empty state that shares the configuration and
 * the connection. Stateless samplers may return themselves.
 */
export interface Sampler {
  sample(request: SampleRequest): Promise<SampleResult>;
  session(): Sampler;
}
