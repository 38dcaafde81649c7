import type { ChatMessage, FinishReason, SampleResult, ToolSpec, TurnTokens } from '../llm/types.ts';

/** Why an episode ended. */
export type TerminationReason =
  /** The agent called finish/submit: the episode ended as the agent meant it to. */
  | 'submitted'
  /** `agent.max_steps` model turns were spent without a submit. */
  | 'max_steps'
  /** The trajectory's token budget or the model's context window ran out. */
  | 'token_budget'
  /** The episode's wall clock (`agent.trajectory_timeout_s`) ran out. */
  | 'timeout'
  /** An infrastructure fault: the sandbox died, or the LLM server failed after its retries. Never scored 0;
   * masked from training. */
  | 'error';

export const TERMINATION_REASONS: readonly TerminationReason[] = [
  'submitted',
  'max_steps',
  'token_budget',
  'timeout',
  'error',
];

/** What the agent loop needs from an environment (`SWEEnv` implements it). */
export interface AgentEnv {
  /** The first user message: the task. */
  readonly instruction: string;
  readonly tools: ToolSpec[];
  /** Run one tool call; an agent's mistake is an observation, an infrastructure fault throws. */
  step(call: { name: string; arguments: unknown }): Promise<{ observation: string; done: boolean }>;
}

/** One model turn and what the environment answered. */
export interface TurnRecord {
  finishReason: FinishReason;
  rawFinishReason: string | undefined;
  /** Token ids and logprobs exactly as sampled, when the sampler gives them. */
  tokens?: TurnTokens;
  usage: { promptTokens: number; completionTokens: number };
  toolCalls: { name: string; arguments: string }[];
  /** Characters of the observations this turn produced. */
  observationChars: number;
  llmMs: number;
  /** Time inside the environment's step calls. */
  envMs: number;
  /** Time of those calls spent waiting on the sandbox. */
  sandboxMs: number;
  /** The whole turn: sampling, tool calls and the loop's own work. */
  totalMs: number;
}

export interface EpisodeBudget {
  maxSteps: number;
  maxTokensPerTurn: number;
  /** Completion + observation tokens after the first prompt (data.max_response_length). */
  maxResponseTokens: number;
  timeoutMs: number;
}

export type { ChatMessage, SampleResult };

/** The trajectory file format's version; bump on any incompatible change. */
export const TRAJECTORY_FORMAT = 'sandgym.trajectory/1';

/**
 * One finished episode as it is stored (one JSON line each) and trained on. It describes itself: format,
 * sandgym version, task, sample index within its group, policy/model, termination, reward and every turn's
 * tokens as sampled.
 */
export interface Trajectory {
  format: typeof TRAJECTORY_FORMAT;
  sandgymVersion: string;
  /** The store key: one trajectory per (taskId, sample). */
  taskId: string;
  /** Index within the task's group of `rollout.n` samples. */
  sample: number;
  /** Which policy or model produced it (e.g. `oracle`, `Qwen/Qwen3-8B`). */
  policy: string;
  termination: TerminationReason;
  detail?: string;
  /** 1 resolved, 0 not; null when the episode is masked (error, or grading failed for infrastructure). */
  reward: number | null;
  /** The grader's verdict, kept raw: status, reason, FAIL_TO_PASS / PASS_TO_PASS results. */
  grade?: unknown;
  /** The agent's diff against the base commit. */
  patch: string;
  messages: ChatMessage[];
  turns: TurnRecord[];
  timing: { startedAt: string; episodeMs: number; prepareMs: number; gradeMs: number };
}
