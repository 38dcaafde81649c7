import { runEpisode, sandboxCreateOptions } from '../agent/episode.ts';
import type { SamplerFactory } from '../agent/samplers.ts';
import type { Trajectory } from '../agent/types.ts';
import type { Config } from '../config/index.ts';
import type { EpisodeGrade } from '../env/index.ts';
import { prepareSandbox } from '../env/index.ts';
import { isInfrastructureFault } from '../errors.ts';
import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { countErrors, tooManyErrors } from './error-fraction.ts';
import { Semaphore } from './semaphore.ts';
import { type TrajectoryStore, trajectoryKey } from './trajectory-store.ts';

export interface RolloutOptions {
  provider: SandboxProvider;
  config: Config;
  samplers: SamplerFactory;
  /** Finished trajectories are appended here as they end; keys already in it are skipped, unless they errored. */
  store?: TrajectoryStore;
  onTrajectory?: (t: Trajectory) => void;
  /** Seeds each episode's sampling from this, the task and the sample index: reproducible at any concurrency. */
  seed?: number;
  signal?: AbortSignal;
  /**
   * Stop the batch as soon as more than this fraction of its episodes has ended in `error` (after
   * retries), whatever the rest would do: a dead provider does not burn through the whole batch.
   */
  maxErrorFraction?: number;
  /** Names the batch in that stop's message, e.g. `rl step 3`. */
  label?: string;
}

/** A 32-bit seed for one episode. */
export function episodeSeed(base: number, taskId: string, sample: number): number {
  let h = 2166136261 ^ base;
  for (const ch of `${taskId}#${sample}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (h >>> 0) % 2147483647;
}

export interface RolloutStats {
  /** Episodes run again after an infrastructure fault. */
  retries: number;
  /** Episodes that ended as `error` after their retries. */
  errors: number;
  /** Samples skipped because the store already had them. */
  skipped: number;
  /** Tasks prepared once and forked for their group. */
  forkedGroups: number;
  /** Sandboxes prepared from scratch (no fork, a retry, or a failed group). */
  freshSandboxes: number;
}

export interface RolloutResult {
  /** The trajectories of this call, in task order, then sample order. */
  trajectories: Trajectory[];
  stats: RolloutStats;
}

type Group = { task: Task; samples: number[]; sandboxes: Promise<(Sandbox | undefined)[]> };

/**
 * Runs a batch of tasks × samples as episodes, many at once:
 * - at most `rollout.n_parallel` episodes and `rollout.create_concurrency` sandbox creations at a time;
 * - with `rollout.fork`, each task is prepared once and `fork(k)`ed for its group of k samples, and the next
 *   `rollout.warm_pool` tasks are prepared while the current ones run, so episodes rarely wait on a sandbox;
 * - an infrastructure fault (`error`) is retried on a fresh sandbox up to `rollout.retry_limit` times, then
 *   kept as `error` (masked from training, never scored 0);
 * - each finished trajectory goes to the store at once; samples the store already has are skipped, so a
 *   rerun after a kill continues where it stopped (an `error` one is run again: it is not a result);
 * - anything else thrown (a bug) stops the batch: no new episode starts, the running ones are cut short
 *   (not stored, so a rerun does them), and `run` rejects with that error and its stack; so do more
 *   errored episodes than `maxErrorFraction` of the batch.
 */
export class RolloutEngine {
  private readonly episodes: Semaphore;
  private readonly creations: Semaphore;
  /** Grades of this engine's episodes by task and patch (see EpisodeOptions.grades). */
  private readonly grades = new Map<string, Promise<EpisodeGrade>>();
  /** Aborted by the caller's signal, or by the first bug. */
  private readonly signal: AbortSignal;
  private readonly halt = new AbortController();
  private bug: { error: unknown } | undefined;
  private readonly errored: Trajectory[] = [];
  private planned = 0;

  constructor(private readonly o: RolloutOptions) {
    this.signal = o.signal ? AbortSignal.any([o.signal, this.halt.signal]) : this.halt.signal;
    this.episodes = new Semaphore(o.config.rollout.n_parallel);
    this.creations = new Semaphore(o.config.rollout.create_concurrency);
  }

  async run(tasks: readonly Task[], samplesPerTask: number): Promise<RolloutResult> {
    const stats: RolloutStats = { retries: 0, errors: 0, skipped: 0, forkedGroups: 0, freshSandboxes: 0 };
    const plans = tasks.map((task) => {
      const samples = Array.from({ length: samplesPerTask }, (_, i) => i).filter((sample) => {
        const stored = this.o.store?.get(trajectoryKey({ taskId: task.id, sample }));
        return stored === undefined || stored.termination === 'error';
      });
      stats.skipped += samplesPerTask - samples.length;
      return { task, samples };
    });
    this.planned = tasks.length * samplesPerTask;
    const todo = plans.filter((p) => p.samples.length > 0);
    const groups: Group[] = [];
    const prepareAhead = (upTo: number) => {
      while (groups.length < Math.min(upTo, todo.length)) {
        const p = todo[groups.length]!;
        groups.push({ ...p, sandboxes: this.prepareGroup(p.task, p.samples.length, stats) });
      }
    };

    const running: Promise<Trajectory | undefined>[] = [];
    const warm = Math.max(1, this.o.config.rollout.warm_pool);
    let consumed = 0;
    for (; consumed < todo.length && !this.aborted; consumed++) {
      prepareAhead(consumed + 1 + warm);
      const group = groups[consumed]!;
      const sandboxes = await group.sandboxes;
      for (const [j, sample] of group.samples.entries()) {
        // Wait for a free episode slot here, so later groups are not prepared far ahead of their turn.
        const release = await this.slot();
        if (this.aborted) {
          release();
          await Promise.all(sandboxes.slice(j).map((s) => s?.close()));
          break;
        }
        running.push(this.episode(group.task, sample, sandboxes[j], stats).finally(release));
      }
    }
    // Groups prepared ahead whose turn never came (an abort): close their sandboxes.
    await Promise.all(
      groups.slice(consumed).map(async (g) => Promise.all((await g.sandboxes).map((s) => s?.close()))),
    );
    const finished = (await Promise.all(running)).filter((t): t is Trajectory => t !== undefined);
    if (this.bug) throw this.bug.error;
    const order = new Map(tasks.map((t, i) => [t.id, i]));
    finished.sort((a, b) => order.get(a.taskId)! - order.get(b.taskId)! || a.sample - b.sample);
    return { trajectories: finished, stats };
  }

  private get aborted(): boolean {
    return this.signal.aborted;
  }

  /** A bug (or too many errors): remember the first, and stop everything else so it surfaces now, not after the batch. */
  private stopFor(error: unknown): undefined {
    this.bug ??= { error };
    this.halt.abort(error);
    return undefined;
  }

  /** Resolves when an episode slot is free; the returned function frees it. */
  private slot(): Promise<() => void> {
    return new Promise((acquired) => {
      void this.episodes.use(
        () =>
          new Promise<void>((release) => {
            acquired(release);
          }),
      );
    });
  }

  /** k sandboxes for a task's group: one prepared and forked, or none (each episode prepares its own). */
  private async prepareGroup(task: Task, k: number, stats: RolloutStats): Promise<(Sandbox | undefined)[]> {
    if (!this.o.config.rollout.fork) return Array.from({ length: k }, () => undefined);
    try {
      const template = await this.creations.use(() => this.prepare(task));
      try {
        const forks = await this.creations.use(() => template.fork(k));
        stats.forkedGroups++;
        return forks;
      } finally {
        await template.close();
      }
    } catch (e) {
      if (!isInfrastructureFault(e)) {
        this.stopFor(e);
        return Array.from({ length: k }, () => undefined);
      }
      // Let each episode try on its own: a fault of one preparation must not sink the whole group.
      return Array.from({ length: k }, () => undefined);
    }
  }

  private prepare(task: Task): Promise<Sandbox> {
    return prepareSandbox(task, this.o.provider, {
      scrubGitHistory: this.o.config.env.scrub_git_history,
      create: sandboxCreateOptions(this.o.config, task),
      signal: this.signal,
    });
  }

  /** One sample of a task, retried on a fresh sandbox after an infrastructure fault; a bug stops the batch. */
  private episode(
    task: Task,
    sample: number,
    sandbox: Sandbox | undefined,
    stats: RolloutStats,
  ): Promise<Trajectory | undefined> {
    // After the caller's own stop, what episodes throw on their way out is a consequence, not a bug.
    return this.attempts(task, sample, sandbox, stats).catch((e: unknown) =>
      this.o.signal?.aborted ? undefined : this.stopFor(e),
    );
  }

  private async attempts(
    task: Task,
    sample: number,
    sandbox: Sandbox | undefined,
    stats: RolloutStats,
  ): Promise<Trajectory | undefined> {
    const limit = this.o.config.rollout.retry_limit;
    let given = sandbox;
    for (let attempt = 0; ; attempt++) {
      if (!given) {
        stats.freshSandboxes++;
        // Prepared here, under the creation limit; if it fails, the episode prepares once more itself and
        // records why.
        given = await this.creations
          .use(() => this.prepare(task))
          .catch((e: unknown) => {
            if (isInfrastructureFault(e)) return undefined;
            throw e;
          });
      }
      const t = await runEpisode({
        task,
        sample,
        config: this.o.config,
        provider: this.o.provider,
        sampler: this.o.samplers.forTask(task),
        grades: this.grades,
        policy: this.o.samplers.policy,
        ...(this.o.seed !== undefined ? { seed: episodeSeed(this.o.seed + attempt, task.id, sample) } : {}),
        ...(given ? { sandbox: given } : {}),
        signal: this.signal,
      });
      given = undefined;
      // An episode cut short by the user is not a result: a rerun does it again.
      if (this.aborted) return undefined;
      if (t.termination !== 'error' || attempt >= limit) {
        this.o.store?.append(t);
        this.o.onTrajectory?.(t);
        if (t.termination === 'error') {
          stats.errors++;
          this.errored.push(t);
          const max = this.o.maxErrorFraction;
          if (max !== undefined && this.errored.length > max * this.planned) {
            const counts = { ...countErrors(this.errored), total: this.planned };
            this.stopFor(tooManyErrors(counts, max, this.o.label ?? 'rollout'));
          }
        }
        return t;
      }
      stats.retries++;
    }
  }
}
