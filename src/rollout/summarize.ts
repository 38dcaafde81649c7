import { TERMINATION_REASONS, type TerminationReason, type Trajectory } from '../agent/types.ts';

export interface RunSummary {
  episodes: number;
  /** Episodes with a reward (not masked as error). */
  scored: number;
  resolved: number;
  /** resolved / scored: infrastructure errors are not failures of the agent. */
  resolvedRate: number;
  terminations: Record<TerminationReason, number>;
  meanSteps: number;
  /** Completion tokens (where the sampler reported them) summed over all turns. */
  completionTokens: number;
  promptTokensLast: number;
  meanEpisodeMs: number;
  meanGradeMs: number;
  /** Median per-step time not spent in the sampler or the sandbox (ms). */
  overheadMsPerStepP50: number;
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The figures `sandgym run` prints and writes: resolved rate, termination reasons, steps, tokens, time. */
export function summarize(trajectories: readonly Trajectory[]): RunSummary {
  const terminations = Object.fromEntries(TERMINATION_REASONS.map((r) => [r, 0])) as Record<
    TerminationReason,
    number
  >;
  for (const t of trajectories) terminations[t.termination]++;
  const scored = trajectories.filter((t) => t.reward !== null);
  const resolved = scored.filter((t) => t.reward === 1).length;
  const turns = trajectories.flatMap((t) => t.turns);
  return {
    episodes: trajectories.length,
    scored: scored.length,
    resolved,
    resolvedRate: scored.length ? resolved / scored.length : 0,
    terminations,
    meanSteps: mean(trajectories.map((t) => t.turns.length)),
    completionTokens: turns.reduce((n, t) => n + t.usage.completionTokens, 0),
    promptTokensLast: trajectories.reduce((n, t) => n + (t.turns.at(-1)?.usage.promptTokens ?? 0), 0),
    meanEpisodeMs: mean(trajectories.map((t) => t.timing.episodeMs)),
    meanGradeMs: mean(trajectories.map((t) => t.timing.gradeMs)),
    overheadMsPerStepP50: median(turns.map((t) => Math.max(0, t.totalMs - t.llmMs - t.sandboxMs))),
  };
}

export function formatSummary(s: RunSummary): string {
  const reasons = Object.entries(s.terminations)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  return [
    `episodes       ${s.episodes} (${s.scored} scored, ${s.terminations.error} masked as error)`,
    `resolved       ${s.resolved}/${s.scored} = ${(100 * s.resolvedRate).toFixed(1)}%`,
    `terminations   ${reasons || '-'}`,
    `steps          ${s.meanSteps.toFixed(1)} per episode`,
    `tokens         ${s.completionTokens} completion, ${s.promptTokensLast} in final prompts`,
    `time           ${(s.meanEpisodeMs / 1000).toFixed(2)} s per episode (grading ${(s.meanGradeMs / 1000).toFixed(2)} s)`,
  ].join('\n');
}
