import { createHash } from 'node:crypto';
import { ConfigError, SandgymError } from '../errors.ts';
import type { ChatTemplate } from './chat-template.ts';
import type { CompletionBackend } from './completion-backend.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { parseToolCalls } from './parse-tool-calls.ts';
import { splitReasoning } from './split-reasoning.ts';
import { turnBridgeIds } from './turn-bridge.ts';
import type {
  AssistantMessage,
  ChatMessage,
  Overflow,
  SampleRequest,
  SampleResult,
  Sampler,
  ToolSpec,
} from './types.ts';

export interface TokenSamplerOptions {
  template: ChatTemplate;
  backend: CompletionBackend;
  /** Cap on one turn's completion tokens; a request's `maxTokens` may only lower it. */
  maxTokensPerTurn: number;
  /**
   * Cap on all tokens after the first prompt: completions plus the tool results and headers between
   * them, i.e. the response length a trainer sees. Default: no cap.
   */
  maxTrajectoryTokens?: number;
  /** The model's context window; default the template's (`config.json` max_position_embeddings). */
  maxContextTokens?: number;
}

/** What a session remembers of its last turn. */
interface TurnState {
  promptIds: number[];
  completionIds: number[];
  /** Length of the trajectory's first prompt; everything after it counts against the budget. */
  firstPromptLength: number;
  /** Fingerprints of the messages that prompt was built from. */
  messageKeys: string[];
  toolsKey: string;
  /** Fingerprint of the reply returned, which the next request must carry after those messages. */
  replyKey: string;
}

/**
 * Samples through a completion backend with the chat template applied here, keeping every token:
 * turn 0 renders the whole prompt; from then on a prompt is the previous prompt ids + the previous
 * completion ids + the rendered new messages (`turnBridgeIds`), never a re-tokenized history, so each
 * prompt extends the last prompt plus completion by construction (rLLM gateway's cumulative mode).
 *
 * Token state belongs to one trajectory: `session()` gives a new one, `fork()` a copy that can branch.
 * The next request must repeat the messages of the last one plus the returned reply, then anything
 * new; if it does not (history rewritten, tools changed), the prompt is rendered afresh and the
 * tokens no longer extend, which the trajectory assembler sees and masks. Sending the same messages
 * again samples that turn again from the same prompt.
 */
export class TokenSampler implements Sampler {
  private readonly maxContextTokens: number;
  private busy = false;

  constructor(
    private readonly options: TokenSamplerOptions,
    private state?: TurnState,
  ) {
    if (!Number.isInteger(options.maxTokensPerTurn) || options.maxTokensPerTurn < 1) {
      throw new ConfigError(
        `token sampler: maxTokensPerTurn must be a positive integer, got ${options.maxTokensPerTurn}`,
      );
    }
    const context = options.maxContextTokens ?? options.template.maxContextTokens;
    if (context === undefined) {
      throw new ConfigError(
        `token sampler: the context window of ${options.template.source} is unknown (no max_position_embeddings in config.json); pass maxContextTokens`,
      );
    }
    this.maxContextTokens = context;
  }

  /** A sampler for a new trajectory: same template and backend, no tokens yet. */
  session(): TokenSampler {
    return new TokenSampler(this.options);
  }

  /** A copy of this trajectory so far, to continue separately. */
  fork(): TokenSampler {
    return new TokenSampler(this.options, this.state && { ...this.state });
  }

  async sample(request: SampleRequest): Promise<SampleResult> {
    if (this.busy) {
      throw new SandgymError(
        'token sampler: sample() called again before the last call returned; give each trajectory its own session()',
      );
    }
    this.busy = true;
    try {
      return await this.sampleTurn(request);
    } finally {
      this.busy = false;
    }
  }

  private async sampleTurn(request: SampleRequest): Promise<SampleResult> {
    const started = performance.now();
    const { template, backend } = this.options;
    const messageKeys = request.messages.map(fingerprint);
    const toolsKey = fingerprint(request.tools ?? []);
    const { promptIds, firstPromptLength } = this.nextPrompt(request, messageKeys, toolsKey);

    const responseSoFar = promptIds.length - firstPromptLength;
    const budgetLeft = (this.options.maxTrajectoryTokens ?? Number.POSITIVE_INFINITY) - responseSoFar;
    const contextLeft = this.maxContextTokens - promptIds.length;
    if (contextLeft <= 0) return overflowResult('context', promptIds.length, started);
    if (budgetLeft <= 0) return overflowResult('token_budget', promptIds.length, started);

    const out = await backend.complete(promptIds, {
      maxTokens: Math.min(
        request.maxTokens ?? this.options.maxTokensPerTurn,
        this.options.maxTokensPerTurn,
        budgetLeft,
        contextLeft,
      ),
      temperature: request.temperature,
      topP: request.topP,
      seed: request.seed,
      stop: request.stop,
      stopTokenIds: template.eosTokenIds,
      signal: request.signal,
    });
    const rawText = template.decode(out.completionIds);
    const { reasoning, content } = splitReasoning(rawText);
    const parsed = parseToolCalls(content, { tools: request.tools });
    const message: AssistantMessage = {
      role: 'assistant',
      content: parsed.content,
      ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
      ...(parsed.toolCalls.length ? { tool_calls: parsed.toolCalls } : {}),
    };
    this.state = {
      promptIds,
      completionIds: out.completionIds,
      firstPromptLength,
      messageKeys,
      toolsKey,
      replyKey: fingerprint(message),
    };
    return {
      message,
      finishReason: mapFinishReason(out.finishReason, parsed.toolCalls.length > 0),
      rawFinishReason: out.finishReason,
      usage: { promptTokens: promptIds.length, completionTokens: out.completionIds.length },
      tokens: { promptIds, completionIds: out.completionIds, completionLogprobs: out.logprobs },
      rawText,
      ...(parsed.errors.length ? { toolCallErrors: parsed.errors } : {}),
      latencyMs: performance.now() - started,
    };
  }

  /** This turn's prompt: continued from the kept tokens when the conversation continues, else rendered. */
  private nextPrompt(request: SampleRequest, messageKeys: string[], toolsKey: string) {
    const last = this.state;
    const { template } = this.options;
    const n = last?.messageKeys.length ?? 0;
    const sameHistory =
      last !== undefined &&
      last.toolsKey === toolsKey &&
      last.messageKeys.every((k, i) => k === messageKeys[i]);
    if (last && sameHistory && messageKeys.length === n) {
      return { promptIds: last.promptIds, firstPromptLength: last.firstPromptLength };
    }
    if (last && sameHistory && messageKeys[n] === last.replyKey) {
      const system = request.messages[0]?.role === 'system' ? request.messages[0] : undefined;
      const bridge = turnBridgeIds(template, {
        system,
        tools: request.tools,
        newMessages: request.messages.slice(n + 1),
        lastCompletionId: last.completionIds.at(-1),
      });
      return {
        promptIds: [...last.promptIds, ...last.completionIds, ...bridge],
        firstPromptLength: last.firstPromptLength,
      };
    }
    const promptIds = template.encode(
      template.render(request.messages, { tools: request.tools, addGenerationPrompt: true }),
    );
    return { promptIds, firstPromptLength: promptIds.length };
  }
}

function overflowResult(overflow: Overflow, promptTokens: number, started: number): SampleResult {
  return {
    message: { role: 'assistant', content: '' },
    finishReason: 'length',
    rawFinishReason: overflow,
    usage: { promptTokens, completionTokens: 0 },
    overflow,
    latencyMs: performance.now() - started,
  };
}

/** A stable digest of a message or tool list, fields in a fixed order. */
function fingerprint(value: ChatMessage | ToolSpec[]): string {
  const canonical = Array.isArray(value)
    ? value
    : {
        role: value.role,
        content: value.content,
        tool_calls: value.tool_calls?.map((c) => ({
          id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        })),
        tool_call_id: value.tool_call_id,
        name: value.name,
        reasoning_content: value.reasoning_content,
      };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64');
}
