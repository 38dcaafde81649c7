import { posix } from 'node:path';
import type { Config } from '../config/index.ts';
import { SandboxError, SandgymError } from '../errors.ts';
import type { Grade } from '../harness/index.ts';
import type { ToolSpec } from '../llm/types.ts';
import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { agentPatch } from './agent-patch.ts';
import { checkArguments, describeParameters } from './check-arguments.ts';
import { gradePatch } from './grade-patch.ts';
import type { PrepareOptions } from './prepare.ts';
import { renderInstruction } from './render-instruction.ts';
import { createToolSet } from './tool-set.ts';
import { StepDeadlineError } from './tools/sandbox-files.ts';
import { truncateObservation } from './truncate-observation.ts';
import type { StepResult, Tool, ToolCallInput, ToolContext, ToolResult } from './types.ts';

export type EnvConfig = Pick<
  Config['env'],
  'tools' | 'step_timeout_s' | 'reward_timeout_s' | 'max_observation_chars'
>;

export interface SWEEnvOptions {
  /** The `env` config section. */
  config: EnvConfig;
  /** Makes the fresh sandbox each grade runs in. */
  provider: SandboxProvider;
  /** Provider options of the grading sandbox (labels, TTL, limits). */
  gradingSandbox?: PrepareOptions['create'];
  /** `execute_bash`'s refused commands; default R2E-Gym's list. */
  blockedCommands?: readonly string[];
  /** A custom instruction template (see `renderInstruction`); default: the built-in one for the task kind. */
  instructionTemplate?: string;
  now?: () => number;
}

/** The outcome of grading: the harness's verdict, the reward, the patch that was graded and the test log. */
export interface EpisodeGrade {
  grade: Grade;
  /** 1 resolved, 0 unresolved; null when grading itself failed (`error`): never trained on as a 0. */
  reward: 1 | 0 | null;
  patch: string;
  log: string;
}

/**
 * One episode's environment: the instruction, the tools, `step` for each tool call, the agent's patch,
 * and the reward. It works in a sandbox made by `prepareSandbox`; the caller owns that sandbox and closes
 * it, `close()` ends only what the tools keep alive (a pdb session).
 *
 * The agent's mistakes come back as observations (`invalid: true` for a malformed call); a broken sandbox
 * throws `SandboxError`, so the episode ends as `error`.
 */
export class SWEEnv {
  readonly instruction: string;
  readonly tools: ToolSpec[];
  private readonly toolList: Tool[];
  private readonly byName = new Map<string, Tool>();
  private readonly readOnlyPaths: ReadonlySet<string>;
  private readonly now: () => number;
  /** HEAD when the episode started: the agent's diff is taken against it. */
  private base: Promise<string> | undefined;
  private submitted = false;
  private closed = false;

  constructor(
    readonly task: Task,
    readonly sandbox: Sandbox,
    private readonly options: SWEEnvOptions,
  ) {
    this.instruction = renderInstruction(task, options.instructionTemplate);
    this.toolList = createToolSet(
      options.config.tools,
      options.blockedCommands ? { blockedCommands: options.blockedCommands } : {},
    );
    for (const tool of this.toolList) {
      this.byName.set(tool.spec.function.name, tool);
      for (const alias of tool.aliases ?? []) this.byName.set(alias, tool);
    }
    this.tools = this.toolList.map((t) => t.spec);
    const workdir = task.test.workdir;
    this.readOnlyPaths = new Set(
      task.kind === 'debug' ? task.readOnly.map((p) => posix.resolve(workdir, p)) : [],
    );
    this.now = options.now ?? Date.now;
  }

  get repoDir(): string {
    return this.task.test.workdir;
  }

  /** Runs one tool call within `env.step_timeout_s` and gives the (cut) observation. */
  async step(call: ToolCallInput): Promise<StepResult> {
    if (this.closed) throw new SandgymError(`env of task ${this.task.id}: step() after close()`);
    if (this.submitted) {
      return {
        observation: 'The episode is over: you already submitted.',
        done: true,
        submitted: true,
        invalid: true,
      };
    }
    const tool = this.byName.get(call.name);
    if (!tool) {
      const names = this.tools.map((t) => t.function.name).join(', ');
      return this.invalid(`There is no tool named "${call.name}". The tools are: ${names}.`);
    }
    const checked = checkArguments(tool.spec, call.arguments);
    if (!checked.ok) {
      return this.invalid(
        `Invalid call to ${tool.spec.function.name}: ${checked.problems.join('; ')}.\n` +
          `Its parameters:\n${describeParameters(tool.spec)}`,
      );
    }
    await this.baseCommit();
    const result = await this.runTool(tool, checked.args);
    if (result.edit) for (const t of this.toolList) t.fileEdited?.(result.edit);
    if (result.submitted) this.submitted = true;
    return {
      observation: truncateObservation(result.observation, this.options.config.max_observation_chars),
      done: this.submitted,
      submitted: this.submitted,
      invalid: false,
    };
  }

  /** The agent's changes as a patch against the episode's start, minus the files the grader provides. */
  async patch(): Promise<string> {
    return agentPatch(this.sandbox, this.task, await this.baseCommit(), {
      timeoutMs: this.options.config.step_timeout_s * 1000,
    });
  }

  /**
   * Grades `patch` (default: the agent's) within `env.reward_timeout_s`, on a fresh sandbox made from the
   * task as published (see `gradePatch`): the official graders apply the patch to a clean checkout, and the
   * agent's sandbox may be in any state by now.
   */
  async grade(patch?: string): Promise<EpisodeGrade> {
    const graded = patch ?? (await this.patch());
    const { grade, log } = await gradePatch(this.task, graded, {
      provider: this.options.provider,
      timeoutMs: this.options.config.reward_timeout_s * 1000,
      ...(this.options.gradingSandbox ? { create: this.options.gradingSandbox } : {}),
    });
    const reward = grade.status === 'resolved' ? 1 : grade.status === 'unresolved' ? 0 : null;
    return { grade, reward, patch: graded, log };
  }

  /** Ends what the tools keep alive (the pdb session). The sandbox stays open: its owner closes it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.toolList.map((t) => t.close?.()));
  }

  private async runTool(tool: Tool, args: Record<string, unknown>): Promise<ToolResult> {
    const timeoutMs = this.options.config.step_timeout_s * 1000;
    const deadline = this.now() + timeoutMs;
    const ctx: ToolContext = {
      sandbox: this.sandbox,
      repoDir: this.repoDir,
      setup: this.task.test.setup.join('\n'),
      remainingMs: () => deadline - this.now(),
      readOnlyPaths: this.readOnlyPaths,
    };
    try {
      return await tool.run(args, ctx);
    } catch (e) {
      if (!(e instanceof StepDeadlineError)) throw e;
      return {
        observation: `The ${tool.spec.function.name} call did not finish within the step limit of ${timeoutMs / 1000} s.`,
      };
    }
  }

  private baseCommit(): Promise<string> {
    this.base ??= this.readHead();
    return this.base;
  }

  private async readHead(): Promise<string> {
    const r = await this.sandbox.exec(['git', 'rev-parse', '--verify', 'HEAD'], {
      cwd: this.repoDir,
      timeoutMs: this.options.config.step_timeout_s * 1000,
    });
    if (r.exitCode !== 0) {
      throw new SandboxError(
        this.sandbox.id,
        `${this.repoDir} has no git HEAD (${r.stderr.trim()}); prepare the sandbox with prepareSandbox()`,
      );
    }
    return r.stdout.trim();
  }

  private invalid(observation: string): StepResult {
    return { observation, done: false, submitted: false, invalid: true };
  }
}
