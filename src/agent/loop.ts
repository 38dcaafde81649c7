import { errorMessage, isInfrastructureFault } from '../errors.ts';
import type { ChatMessage, SampleResult, Sampler } from '../llm/types.ts';
import { extractToolCalls, type TurnCalls } from './extract-tool-calls.ts';
import type { AgentEnv, EpisodeBudget, TerminationReason, TurnRecord } from './types.ts';

export interface LoopOptions {
  env: AgentEnv;
  sampler: Sampler;
  systemPrompt: string;
  budget: EpisodeBudget;
  /** function_calling: tools go in the request; xml: the system prompt describes them, replies hold markup. */
  toolCallFormat: 'function_calling' | 'xml';
  /** Sampling settings sent with every request. */
  sampling?: { temperature?: number; topP?: number; seed?: number };
  /** Time spent waiting on the sandbox so far (for the overhead figure); a counter the caller keeps. */
  sandboxMs?: () => number;
  signal?: AbortSignal;
  now?: () => number;
}

export interface LoopResult {
  messages: ChatMessage[];
  turns: TurnRecord[];
  termination: TerminationReason;
  /** What happened, in words, when the reason alone does not say it (the error, the budget). */
  detail?: string;
}

const NO_CALL_HINT =
  'No tool call found in your reply. Call exactly one of the tools to act, e.g. view a file, run a command, ' +
  'or call finish when you are done.';

/**
 * The agent loop: sample a turn, run its tool calls, feed back observations, until the agent submits or a
 * budget runs out. The agent's mistakes (no call, malformed call, unknown tool) become observations; only an
 * infrastructure fault (sandbox died, LLM server down after retries) ends the episode as `error`. Anything
 * else thrown — a TypeError in a tool — is a bug: it propagates with its stack and stops the run.
 */
export async function runAgentLoop(o: LoopOptions): Promise<LoopResult> {
  const now = o.now ?? (() => performance.now());
  const start = now();
  const messages: ChatMessage[] = [
    { role: 'system', content: o.systemPrompt },
    { role: 'user', content: o.env.instruction },
  ];
  const turns: TurnRecord[] = [];
  const deadline = start + o.budget.timeoutMs;
  let firstPromptTokens: number | undefined;
  const end = (termination: TerminationReason, detail?: string): LoopResult =>
    detail === undefined ? { messages, turns, termination } : { messages, turns, termination, detail };

  for (let step = 0; step < o.budget.maxSteps; step++) {
    if (now() >= deadline) return end('timeout', `episode wall clock of ${o.budget.timeoutMs} ms ran out`);
    const used = firstPromptTokens === undefined ? 0 : responseTokensUsed(turns, firstPromptTokens);
    const left = o.budget.maxResponseTokens - used;
    if (left <= 0)
      return end('token_budget', `response budget of ${o.budget.maxResponseTokens} tokens spent`);

    const t0 = now();
    let result: SampleResult;
    const turnDeadline = deadlineSignal(deadline - now(), o.signal);
    try {
      result = await o.sampler.sample({
        messages,
        ...(o.toolCallFormat === 'function_calling' ? { tools: o.env.tools } : {}),
        maxTokens: Math.min(o.budget.maxTokensPerTurn, left),
        ...o.sampling,
        ...(o.sampling?.seed !== undefined ? { seed: o.sampling.seed + step } : {}),
        signal: turnDeadline.signal,
      });
    } catch (e) {
      if (turnDeadline.expired() || now() >= deadline) {
        return end('timeout', 'episode wall clock ran out while sampling');
      }
      // Stopped by the caller (Ctrl-C): not a result, whatever the sampler threw on the way out.
      if (o.signal?.aborted) return end('error', 'stopped before the episode ended');
      // Only the server failing is the episode's fault to absorb; a bug in sampling stops the run.
      if (isInfrastructureFault(e)) return end('error', `LLM: ${errorMessage(e)}`);
      throw e;
    } finally {
      turnDeadline.clear();
    }
    const llmMs = now() - t0;
    firstPromptTokens ??= result.tokens?.promptIds.length ?? result.usage.promptTokens;
    if (result.overflow) {
      return end('token_budget', `no room left (${result.overflow}) before turn ${step + 1}`);
    }
    if (result.finishReason === 'error') {
      return end('error', `LLM finished with an error (${result.rawFinishReason ?? 'unknown'})`);
    }
    messages.push(result.message);
    const turnCalls = extractToolCalls(result, o.env.tools);
    const turn: TurnRecord = {
      finishReason: result.finishReason,
      rawFinishReason: result.rawFinishReason,
      ...(result.tokens ? { tokens: result.tokens } : {}),
      usage: result.usage,
      toolCalls: turnCalls.calls.map((c) => ({ name: c.name, arguments: c.rawArguments })),
      observationChars: 0,
      llmMs,
      envMs: 0,
      sandboxMs: 0,
      totalMs: 0,
    };
    turns.push(turn);

    const sandbox0 = o.sandboxMs?.() ?? 0;
    const e0 = now();
    let done = false;
    try {
      done = await answerCalls(o, messages, turn, turnCalls, result);
    } catch (e) {
      turn.envMs = now() - e0;
      if (isInfrastructureFault(e)) return end('error', `environment: ${errorMessage(e)}`);
      throw e;
    }
    turn.envMs = now() - e0;
    turn.sandboxMs = (o.sandboxMs?.() ?? 0) - sandbox0;
    turn.totalMs = now() - t0;
    if (done) return end('submitted');
  }
  return end('max_steps', `${o.budget.maxSteps} steps without a submit`);
}

/** Runs each call and appends its observation; true when the agent submitted. */
async function answerCalls(
  o: LoopOptions,
  messages: ChatMessage[],
  turn: TurnRecord,
  { calls, errors }: TurnCalls,
  result: SampleResult,
): Promise<boolean> {
  const reply = (text: string, call?: { id?: string; name: string }): void => {
    turn.observationChars += text.length;
    if (o.toolCallFormat === 'function_calling' && call?.id) {
      messages.push({ role: 'tool', content: text, tool_call_id: call.id, name: call.name });
    } else {
      messages.push({ role: 'user', content: text });
    }
  };
  const truncated =
    result.finishReason === 'length' ? ' Your reply was cut at the token limit; be briefer.' : '';
  if (calls.length === 0) {
    reply(
      errors.length
        ? `Your tool call could not be read: ${errors.join('; ')}.${truncated}`
        : NO_CALL_HINT + truncated,
    );
    return false;
  }
  for (const call of calls) {
    if (call.error) {
      reply(`Your call to "${call.name}" could not be parsed: ${call.error}`, call);
      continue;
    }
    const { observation, done } = await o.env.step({ name: call.name, arguments: call.arguments });
    reply(observation, call);
    if (done) return true;
  }
  if (errors.length)
    reply(`Another tool call in your reply could not be read: ${errors.join('; ')}.${truncated}`);
  return false;
}

/** Tokens after the first prompt: the last prompt's growth plus its completion. */
function responseTokensUsed(turns: TurnRecord[], firstPromptTokens: number): number {
  const last = turns[turns.length - 1]!;
  if (last.tokens) return last.tokens.promptIds.length + last.tokens.completionIds.length - firstPromptTokens;
  return last.usage.promptTokens + last.usage.completionTokens - firstPromptTokens;
}

/** An abort signal that fires at the deadline; a referenced timer, so a hung request cannot outlive it. */
function deadlineSignal(
  ms: number,
  outer?: AbortSignal,
): { signal: AbortSignal; clear: () => void; expired: () => boolean } {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`deadline of ${ms} ms passed`)), Math.max(1, ms));
  const signal = outer ? AbortSignal.any([outer, ac.signal]) : ac.signal;
  return { signal, clear: () => clearTimeout(timer), expired: () => ac.signal.aborted };
}
