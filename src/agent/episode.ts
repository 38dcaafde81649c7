import { createHash } from 'node:crypto';
import type { Config } from '../config/index.ts';
import { createToolSet, type EpisodeGrade, prepareSandbox, renderInstruction, SWEEnv } from '../env/index.ts';
import { errorMessage, isInfrastructureFault } from '../errors.ts';
import type { ChatMessage, Sampler, ToolSpec } from '../llm/types.ts';
import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { VERSION } from '../version.ts';
import { runAgentLoop } from './loop.ts';
import { loadPromptSet, renderSystemPrompt } from './prompts.ts';
import { timedSandbox } from './timed-sandbox.ts';
import { TRAJECTORY_FORMAT, type Trajectory } from './types.ts';

export interface EpisodeOptions {
  task: Task;
  /** Index within the task's group of samples. */
  sample: number;
  config: Config;
  provider: SandboxProvider;
  /** A sampler for this episode alone (call `session()` on a shared one). */
  sampler: Sampler;
  /** Names the policy or model in the trajectory. */
  policy: string;
  /**
   * Grades already given in this batch, by task and patch: samples of a group often end with the same
   * patch (always, for an oracle; often the empty one), and the same patch on the same task gets the same
   * grade, so it is graded once. Errors are never shared: a failed grading is retried by the next sample.
   */
  grades?: Map<string, Promise<EpisodeGrade>>;
  /** Seeds the sampler's turns (seed + turn index), for reproducible sampling at any concurrency. */
  seed?: number;
  /** A sandbox already prepared for this task (a fork of a prepared one); closed when the episode ends. */
  sandbox?: Sandbox;
  signal?: AbortSignal;
}

/** The prompt set for a task: `auto` picks the debugging prompt for debug tasks, the SWE prompt otherwise. */
export function promptNameFor(task: Task, configured: string): string {
  if (configured !== 'auto') return configured;
  return task.kind === 'debug' ? 'debug' : 'swe';
}

/**
 * One whole episode: prepare the task's sandbox (unless given one), let the agent work, take its patch,
 * grade it on a fresh sandbox with its own budget, and close everything. Infrastructure faults end the
 * episode as `error` with reward null — never a 0 — and never throw; anything else (a bug) throws.
 */
export async function runEpisode(o: EpisodeOptions): Promise<Trajectory> {
  const startedAt = new Date();
  const t0 = performance.now();
  const { config, task } = o;
  let prepareMs = 0;
  let gradeMs = 0;
  const base = {
    format: TRAJECTORY_FORMAT,
    sandgymVersion: VERSION,
    taskId: task.id,
    sample: o.sample,
    policy: o.policy,
  } as const;
  const finish = (rest: Omit<Trajectory, keyof typeof base | 'timing'>): Trajectory => ({
    ...base,
    ...rest,
    timing: { startedAt: startedAt.toISOString(), episodeMs: performance.now() - t0, prepareMs, gradeMs },
  });

  let sandbox = o.sandbox;
  if (!sandbox) {
    const p0 = performance.now();
    try {
      sandbox = await prepareSandbox(task, o.provider, {
        scrubGitHistory: config.env.scrub_git_history,
        create: sandboxCreateOptions(config, task),
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (e) {
      if (!isInfrastructureFault(e)) throw e;
      return finish({
        termination: 'error',
        detail: `preparing the sandbox: ${e.message}`,
        reward: null,
        patch: '',
        messages: [],
        turns: [],
      });
    } finally {
      prepareMs = performance.now() - p0;
    }
  }

  const timed = timedSandbox(sandbox);
  const prompts = loadPromptSet(promptNameFor(task, config.agent.prompt));
  const env = new SWEEnv(task, timed.sandbox, {
    ...(prompts.instruction ? { instructionTemplate: prompts.instruction } : {}),
    config: config.env,
    provider: o.provider,
    gradingSandbox: sandboxCreateOptions(config, task),
    blockedCommands: config.env.bash_blocklist,
  });
  try {
    const format = config.agent.tool_call_format;
    const loop = await runAgentLoop({
      env,
      sampler: o.sampler,
      systemPrompt: renderSystemPrompt(
        loadPromptSet(promptNameFor(task, config.agent.prompt)),
        format,
        env.tools,
      ),
      budget: {
        maxSteps: config.agent.max_steps,
        maxTokensPerTurn: config.agent.max_tokens_per_turn,
        maxResponseTokens: config.data.max_response_length,
        timeoutMs: config.agent.trajectory_timeout_s * 1000,
      },
      toolCallFormat: format,
      sampling: {
        temperature: config.llm.temperature,
        topP: config.llm.top_p,
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
      },
      sandboxMs: timed.elapsedMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const ended = {
      termination: loop.termination,
      ...(loop.detail ? { detail: loop.detail } : {}),
      messages: loop.messages,
      turns: loop.turns,
    };
    if (loop.termination === 'error') return finish({ ...ended, reward: null, patch: '' });

    let patch: string;
    let graded: EpisodeGrade;
    const g0 = performance.now();
    try {
      patch = await env.patch();
      graded = await gradeOnce(o.grades, task, patch, () => env.grade(patch));
    } catch (e) {
      if (!isInfrastructureFault(e)) throw e;
      return finish({
        ...ended,
        termination: 'error',
        detail: `grading: ${errorMessage(e)}`,
        reward: null,
        patch: '',
      });
    } finally {
      gradeMs = performance.now() - g0;
    }
    return finish({ ...ended, reward: graded.reward, grade: graded.grade, patch });
  } finally {
    await env.close().catch(() => undefined);
    await sandbox.close().catch(() => undefined);
  }
}

async function gradeOnce(
  memo: Map<string, Promise<EpisodeGrade>> | undefined,
  task: Task,
  patch: string,
  grade: () => Promise<EpisodeGrade>,
): Promise<EpisodeGrade> {
  if (!memo) return grade();
  const key = `${task.id}\0${createHash('sha256').update(patch).digest('hex')}`;
  let pending = memo.get(key);
  if (!pending) {
    pending = grade();
    memo.set(key, pending);
  }
  const graded = await pending.catch((e: unknown) => {
    memo.delete(key);
    throw e;
  });
  if (graded.reward === null) memo.delete(key);
  return graded;
}

/**
 * The first request an episode of `task` makes, as the loop builds it from SWEEnv: the system prompt and
 * the instruction, with the tools (function calling). What a preflight measures against the context.
 */
export function firstPrompt(task: Task, config: Config): { messages: ChatMessage[]; tools?: ToolSpec[] } {
  const prompts = loadPromptSet(promptNameFor(task, config.agent.prompt));
  const tools = createToolSet(config.env.tools, { blockedCommands: config.env.bash_blocklist }).map(
    (t) => t.spec,
  );
  const format = config.agent.tool_call_format;
  return {
    messages: [
      { role: 'system', content: renderSystemPrompt(prompts, format, tools) },
      { role: 'user', content: renderInstruction(task, prompts.instruction) },
    ],
    ...(format === 'function_calling' ? { tools } : {}),
  };
}

/** Sandbox settings from the config, labelled with the task so `sandgym gc` output says what it was. */
export function sandboxCreateOptions(config: Config, task: Task) {
  const l = config.sandbox.limits;
  return {
    labels: { 'sandgym.task': task.id },
    ttlMs: config.sandbox.ttl_s * 1000,
    network: config.sandbox.network,
    limits: {
      memoryBytes: l.memory_mb * 1024 * 1024,
      pids: l.pids,
      cpus: l.cpus,
      diskBytes: l.disk_mb * 1024 * 1024,
      outputBytes: l.output_kb * 1024,
    },
  };
}
