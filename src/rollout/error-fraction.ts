import type { Trajectory } from '../agent/types.ts';
import { SandgymError } from '../errors.ts';

/** Ids and counters in error details (sandbox ids, ports, pids) differ between episodes of the same fault. */
const normalize = (detail: string) => detail.replace(/\b(?=\w*\d)[\w-]{6,}\b|\d+/g, '…');

export interface ErrorCounts {
  errors: number;
  total: number;
  /** The most common error (details alike up to ids and numbers), how often, and an episode that shows it. */
  top?: { detail: string; count: number; example: string };
}

/** How many episodes of a batch ended as `error`, and which fault was the most common. */
export function countErrors(trajectories: readonly Trajectory[]): ErrorCounts {
  const groups = new Map<string, { detail: string; count: number; example: string }>();
  let errors = 0;
  for (const t of trajectories) {
    if (t.termination !== 'error') continue;
    errors++;
    const detail = t.detail ?? '(no detail)';
    const g = groups.get(normalize(detail));
    if (g) g.count++;
    else groups.set(normalize(detail), { detail, count: 1, example: `${t.taskId}#${t.sample}` });
  }
  const top = [...groups.values()].sort((a, b) => b.count - a.count)[0];
  return { errors, total: trajectories.length, ...(top ? { top } : {}) };
}

/**
 * Stops a run whose batch is mostly infrastructure errors (`rollout.max_error_fraction`): training on
 * the few survivors would be training on a biased sample, and the fault will not fix itself. The message
 * names the most common error and an episode that shows it; the batch's finished episodes stay stored
 * and errored ones run again, so rerunning the same command continues.
 */
export function checkErrorFraction(
  trajectories: readonly Trajectory[],
  maxFraction: number,
  where: string,
): ErrorCounts {
  const counts = countErrors(trajectories);
  if (counts.total === 0 || counts.errors / counts.total <= maxFraction) return counts;
  throw tooManyErrors(counts, maxFraction, where);
}

/** The stop of a batch over `rollout.max_error_fraction`, saying what failed and how to go on. */
export function tooManyErrors(counts: ErrorCounts, maxFraction: number, where: string): SandgymError {
  const pct = ((100 * counts.errors) / counts.total).toFixed(0);
  return new SandgymError(
    `${where}: ${counts.errors} of ${counts.total} episodes (${pct}%) ended in an infrastructure error, more than ` +
      `rollout.max_error_fraction=${maxFraction}; most common (${counts.top!.count}×): ${counts.top!.detail} ` +
      `(e.g. episode ${counts.top!.example}). Fix the cause and rerun the same command: finished episodes are ` +
      'kept and the errored ones run again',
  );
}
