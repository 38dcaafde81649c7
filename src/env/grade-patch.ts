import type { Sandbox, SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { type PrepareOptions, prepareSandbox } from './prepare.ts';

/** What the environment reads of a grade; the harness's `Grade` has it, with its details beside. */
export interface GradeLike {
  status: 'resolved' | 'unresolved' | 'error';
}

/** Applies `patch` in `sandbox`, runs the task's tests and grades them (the harness's `evaluate`). */
export type Grader<G extends GradeLike = GradeLike> = (
  sandbox: Sandbox,
  task: Task,
  patch: string,
  options: { timeoutMs: number; signal?: AbortSignal },
) => Promise<G>;

export interface GradePatchOptions<G extends GradeLike> {
  provider: SandboxProvider;
  grader: Grader<G>;
  /** The whole grading budget (`env.reward_timeout_s`): making the sandbox and running the tests. */
  timeoutMs: number;
  create?: PrepareOptions['create'];
  now?: () => number;
}

/**
 * Grades a patch the way the official graders do: on a fresh sandbox made from the task as published
 * (tests in place, history untouched), closed afterwards whatever happened.
 */
export async function gradePatch<G extends GradeLike>(
  task: Task,
  patch: string,
  options: GradePatchOptions<G>,
): Promise<G> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const signal = AbortSignal.timeout(options.timeoutMs);
  const sandbox = await prepareSandbox(task, options.provider, {
    purpose: 'grading',
    timeoutMs: options.timeoutMs,
    signal,
    ...(options.create ? { create: options.create } : {}),
  });
  try {
    return await options.grader(sandbox, task, patch, { timeoutMs: Math.max(0, deadline - now()), signal });
  } finally {
    await sandbox.close();
  }
}
