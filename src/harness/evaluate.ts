import { isSandboxError } from '../errors.ts';
import type { ExecResult, Sandbox } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import { buildEvalPlan } from './eval-script.ts';
import { errorGrade, type Grade } from './grade.ts';
import { gradeLog } from './grade-log.ts';
import { APPLY_PATCH_FAIL, APPLY_PATCH_PASS, TESTS_TIMEOUT } from './markers.ts';
import { ALREADY_APPLIED_CHECK, PATCH_APPLY_COMMANDS, PATCH_FILE, restoreCommand } from './patch-apply.ts';
import type { TestReport } from './test-report.ts';

export interface EvaluateOptions {
  /**
   * The patch to apply first, to a working tree at the task's start (a fresh sandbox). Omitted: grade the
   * sandbox's tree as it is (the agent's own sandbox). Empty or blank: the empty patch, nothing applied.
   */
  patch?: string;
  /** Deadline of the test run; past it the run is an `error` (default 30 min, SWE-bench's). */
  timeoutMs?: number;
  /** Deadline of each patch command (default 60 s). */
  applyTimeoutMs?: number;
  /** Test output kept; beyond it the middle is cut (default 16 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

export interface Evaluation {
  grade: Grade;
  report: TestReport;
  /** Everything the evaluation printed, with SWE-bench's markers: what `grade` was read from. */
  log: string;
}

export const DEFAULT_TEST_TIMEOUT_MS = 30 * 60_000;

/**
 * Evaluates a patch in a sandbox the way SWE-bench's harness does: write it to /tmp/patch.diff, apply it
 * (each of SWE-bench's commands in turn), write and run the eval script with a deadline, and grade the
 * log. Exec failures are data and end up in the log; a broken sandbox (SandboxError) is an `error` grade,
 * never a thrown exception or a 0. Other exceptions (bugs, a cancelled signal) propagate.
 */
export async function evaluate(
  sandbox: Sandbox,
  task: Task,
  options: EvaluateOptions = {},
): Promise<Evaluation> {
  const log: string[] = [];
  try {
    if (options.patch !== undefined && !(await applyPatch(sandbox, task, options.patch, options, log))) {
      return { ...gradeLog(task, log.join('')), log: log.join('') };
    }
    const plan = buildEvalPlan(task);
    for (const file of plan.files) await sandbox.writeFile(file.path, file.content);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
    const run = await sandbox.exec(plan.command, {
      cwd: task.test.workdir,
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? 16 * 1024 * 1024,
      signal: options.signal,
    });
    log.push(run.stdout, run.stderr);
    if (run.timedOut) log.push(`\n${TESTS_TIMEOUT} after ${timeoutMs} ms (raise the test timeout)\n`);
    const text = log.join('');
    const graded = gradeLog(task, text);
    if (run.truncated && graded.grade.status === 'unresolved') {
      const reason =
        'the test output exceeded maxOutputBytes and was cut; what is left does not show a resolution';
      return { grade: errorGrade('output_truncated', reason), report: graded.report, log: text };
    }
    return { ...graded, log: text };
  } catch (e) {
    if (!isSandboxError(e) || options.signal?.aborted) throw e;
    const text = log.join('');
    return {
      grade: errorGrade('sandbox_failed', e.message),
      report: new Map(),
      log: `${text}\n${e.message}\n`,
    };
  }
}

/** True when applied; on failure the log ends with SWE-bench's "Patch Apply Failed" marker. */
async function applyPatch(
  sandbox: Sandbox,
  task: Task,
  patch: string,
  options: EvaluateOptions,
  log: string[],
): Promise<boolean> {
  if (!patch.trim()) {
    log.push('empty patch: nothing to apply\n');
    return true;
  }
  await sandbox.writeFile(PATCH_FILE, patch.endsWith('\n') ? patch : `${patch}\n`);
  const exec = (command: string) =>
    sandbox.exec(command, {
      cwd: task.test.workdir,
      timeoutMs: options.applyTimeoutMs ?? 60_000,
      signal: options.signal,
    });
  const restore = restoreCommand(patch);
  let last: ExecResult | undefined;
  for (const [i, command] of PATCH_APPLY_COMMANDS.entries()) {
    if (i > 0 && restore) await exec(restore);
    last = await exec(`${command} ${PATCH_FILE}`);
    if (last.exitCode === 0) {
      log.push(`${APPLY_PATCH_PASS} (${command}):\n${last.stdout}${last.stderr}\n`);
      return true;
    }
  }
  // As SWE-bench 5: a command can exit non-zero and still leave the patch fully applied.
  if ((await exec(ALREADY_APPLIED_CHECK)).exitCode === 0) {
    log.push(`${APPLY_PATCH_PASS}: already applied\n`);
    return true;
  }
  if (restore) await exec(restore);
  log.push(`${APPLY_PATCH_FAIL}:\n${last!.stdout}${last!.stderr}\n`);
  return false;
}
