import { isSandboxError } from '../errors.ts';
import { errorGrade, evaluate, type Grade } from '../harness/index.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { type PrepareOptions, prepareSandbox } from './prepare.ts';

export interface GradePatchOptions {
  provider: SandboxProvider;
  /** The whole grading budget (`env.reward_timeout_s`): making the sandbox, applying, running the tests. */
  timeoutMs: number;
  create?: PrepareOptions['create'];
  now?: () => number;
}

/** The harness's verdict on a patch, and the log it was read from. */
export interface PatchGrade {
  grade: Grade;
  log: string;
}

/**
 * Grades a patch the way the official graders do: SWE-bench applies a prediction to a fresh container of
 * the instance image, so this makes a fresh sandbox from the task as published (tests in place, history
 * untouched), has the harness apply the patch and run the tests, and closes the sandbox whatever happened.
 * Nothing the agent did outside its diff (installed packages, edited tests, background processes, a
 * damaged environment) reaches the grade. A sandbox that breaks while grading gives an `error` grade, as
 * inside the harness; it is never a 0.
 */
export async function gradePatch(task: Task, patch: string, options: GradePatchOptions): Promise<PatchGrade> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  let sandbox: Awaited<ReturnType<typeof prepareSandbox>>;
  try {
    sandbox = await prepareSandbox(task, options.provider, {
      purpose: 'grading',
      timeoutMs: options.timeoutMs,
      ...(options.create ? { create: options.create } : {}),
    });
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    return {
      grade: errorGrade('sandbox_failed', `the grading sandbox: ${e.message}`),
      log: `${e.message}\n`,
    };
  }
  try {
    const { grade, log } = await evaluate(sandbox, task, { patch, timeoutMs: Math.max(1, deadline - now()) });
    return { grade, log };
  } finally {
    await sandbox.close();
  }
}
