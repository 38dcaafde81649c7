import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import type { Trajectory } from '../agent/types.ts';

/*
 * What `sandgym ui` reads from a run directory, as `sandgym run` and `sandgym train`/`main` leave it:
 * config.yaml (marks a run), summary.json (a finished `run`), metrics.jsonl and curve.json (training;
 * curve.json is written when training ends), and episodes as JSONL trajectory stores: trajectories.jsonl,
 * rollouts/step-N.jsonl, validation/<phase>-<step>.jsonl, sft/oracle.jsonl. Only names found by listing
 * are ever opened, so a request cannot reach outside the runs directory.
 */

/** A run with no file written for this long and no end marker is taken as stopped, not running. */
const RUNNING_WINDOW_MS = 10 * 60_000;

export type RunStatus = 'finished' | 'running' | 'stopped';

export interface RunInfo {
  /** Path under the runs directory, '/'-separated ('.' when the runs directory is itself a run). */
  id: string;
  kind: 'run' | 'train';
  status: RunStatus;
  /** Last training step in metrics.jsonl (0 for `sandgym run`). */
  steps: number;
  /** Latest held-out resolved rate (val/*_resolved_rate), or a `run`'s resolved rate. */
  latestResolvedRate: number | null;
  episodes: number;
  updatedAt: string;
  config: unknown;
}

/** Directories under `root` (itself included, three levels down) that hold a config.yaml. */
export function findRunDirs(root: string, depth = 3): string[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) return [];
  if (existsSync(join(root, 'config.yaml'))) return [root];
  if (depth === 0) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => findRunDirs(join(root, d.name), depth - 1));
}

export function runId(root: string, dir: string): string {
  return relative(root, dir).split(sep).join('/') || '.';
}

/** Episode sets of a run: names like `trajectories`, `rollouts/step-000003`, `validation/init-0`. */
export function episodeSets(dir: string): string[] {
  const sets: string[] = [];
  if (existsSync(join(dir, 'trajectories.jsonl'))) sets.push('trajectories');
  for (const sub of ['rollouts', 'validation', 'sft']) {
    const d = join(dir, sub);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).sort()) if (f.endsWith('.jsonl')) sets.push(`${sub}/${f.slice(0, -6)}`);
  }
  return sets;
}

export interface MetricPoint {
  step: number;
  time: string;
  [name: string]: number | string;
}

export function readMetrics(dir: string): MetricPoint[] {
  return readJsonl<MetricPoint>(join(dir, 'metrics.jsonl'));
}

export function readTrajectories(dir: string, set: string): Trajectory[] {
  if (!episodeSets(dir).includes(set)) throw new NotFound(`no episode set ${set}`);
  return readJsonl<Trajectory>(join(dir, `${set}.jsonl`));
}

export class NotFound extends Error {}

/**
 * Parsed JSONL, cached by path, size and mtime (a live run's file is reparsed only when it grew), for the
 * few files last read: a long run's episodes together are far larger than memory should hold.
 */
const cache = new Map<string, { key: string; rows: unknown[] }>();
const CACHED_FILES = 8;

function fileKey(path: string): string {
  const st = statSync(path);
  return `${st.size}:${st.mtimeMs}`;
}

function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const key = fileKey(path);
  const hit = cache.get(path);
  cache.delete(path);
  if (hit?.key === key) {
    cache.set(path, hit);
    return hit.rows as T[];
  }
  const rows: unknown[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      // The last line of a file being written may be cut short; the stores drop it the same way.
    }
  }
  cache.set(path, { key, rows });
  if (cache.size > CACHED_FILES) cache.delete(cache.keys().next().value!);
  return rows as T[];
}

/** Complete lines of a JSONL file (a line cut short has no newline yet), without parsing them. */
const lineCounts = new Map<string, { key: string; lines: number }>();

function countLines(path: string): number {
  const key = fileKey(path);
  const hit = lineCounts.get(path);
  if (hit?.key === key) return hit.lines;
  const data = readFileSync(path);
  let lines = 0;
  for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) lines++;
  lineCounts.set(path, { key, lines });
  return lines;
}

function latestMtime(dir: string, names: string[]): number {
  return Math.max(
    0,
    ...names
      .map((n) => join(dir, n))
      .filter(existsSync)
      .map((p) => statSync(p).mtimeMs),
  );
}

export function runInfo(root: string, dir: string, now = Date.now()): RunInfo {
  const config = parse(readFileSync(join(dir, 'config.yaml'), 'utf8')) as unknown;
  const sets = episodeSets(dir);
  const metrics = readMetrics(dir);
  const isTrain = existsSync(join(dir, 'metrics.jsonl')) || existsSync(join(dir, 'rollouts'));
  const updated = latestMtime(dir, ['config.yaml', 'metrics.jsonl', ...sets.map((s) => `${s}.jsonl`)]);
  let latestResolvedRate: number | null = null;
  for (const m of metrics)
    for (const [k, v] of Object.entries(m))
      if (/^val\/.*resolved_rate$/.test(k) && typeof v === 'number') latestResolvedRate = v;
  const summaryPath = join(dir, 'summary.json');
  if (!isTrain && existsSync(summaryPath)) {
    const s = JSON.parse(readFileSync(summaryPath, 'utf8')) as { resolvedRate?: number };
    latestResolvedRate = s.resolvedRate ?? null;
  }
  const finished = existsSync(join(dir, isTrain ? 'curve.json' : 'summary.json'));
  return {
    id: runId(root, dir),
    kind: isTrain ? 'train' : 'run',
    status: finished ? 'finished' : now - updated < RUNNING_WINDOW_MS ? 'running' : 'stopped',
    steps: Math.max(0, ...metrics.map((m) => m.step)),
    latestResolvedRate,
    episodes: sets.reduce((n, s) => n + countLines(join(dir, `${s}.jsonl`)), 0),
    updatedAt: new Date(updated).toISOString(),
    config,
  };
}

export interface EpisodeRow {
  key: string;
  task: string;
  sample: number;
  reward: number | null;
  termination: string;
  turns: number;
  completionTokens: number;
  episodeMs: number;
  llmMs: number;
  sandboxMs: number;
  gradeMs: number;
}

export function episodeRow(t: Trajectory): EpisodeRow {
  const sum = (f: (turn: Trajectory['turns'][number]) => number) => t.turns.reduce((n, x) => n + f(x), 0);
  return {
    key: `${t.taskId}#${t.sample}`,
    task: t.taskId,
    sample: t.sample,
    reward: t.reward,
    termination: t.termination,
    turns: t.turns.length,
    completionTokens: sum((x) => x.usage.completionTokens),
    episodeMs: Math.round(t.timing.episodeMs),
    llmMs: Math.round(sum((x) => x.llmMs)),
    sandboxMs: Math.round(sum((x) => x.sandboxMs)),
    gradeMs: Math.round(t.timing.gradeMs),
  };
}

export type EpisodeFilter = 'all' | 'failed' | 'errored' | 'resolved';

/** One page of a set's episode table, filtered and ordered: by task and sample, or longest first. */
export function episodePage(
  rows: EpisodeRow[],
  q: {
    filter?: EpisodeFilter;
    task?: string;
    sort?: 'key' | 'turns' | 'time';
    offset: number;
    limit: number;
  },
): { total: number; rows: EpisodeRow[] } {
  let r = rows.filter((x) => {
    if (q.task && x.task !== q.task) return false;
    if (q.filter === 'failed') return x.reward === 0;
    if (q.filter === 'errored') return x.termination === 'error';
    if (q.filter === 'resolved') return x.reward === 1;
    return true;
  });
  if (q.sort === 'turns') r = [...r].sort((a, b) => b.turns - a.turns);
  else if (q.sort === 'time') r = [...r].sort((a, b) => b.episodeMs - a.episodeMs);
  else r = [...r].sort((a, b) => a.task.localeCompare(b.task) || a.sample - b.sample);
  return { total: r.length, rows: r.slice(q.offset, q.offset + q.limit) };
}

/** Wilson's 95% score interval of a binomial rate: stays inside [0, 1] and is honest at 0/n and n/n. */
export function wilson95(successes: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.959964;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const center = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

export interface HeldOutPoint {
  /** The validation's label: `<phase>-<step>` (init-0, sft-40, rl-10). */
  label: string;
  resolved: number;
  /** Episodes with a reward (errors are masked, not failures). */
  scored: number;
  rate: number;
  low: number;
  high: number;
}

/** Each validation's held-out resolved rate with its interval, in the order they were run. */
export function heldOut(dir: string): HeldOutPoint[] {
  return episodeSets(dir)
    .filter((s) => s.startsWith('validation/'))
    .map((s) => ({ s, at: statSync(join(dir, `${s}.jsonl`)).mtimeMs }))
    .sort((a, b) => a.at - b.at)
    .map(({ s }) => {
      const scored = readTrajectories(dir, s).filter((t) => t.reward !== null);
      const resolved = scored.filter((t) => t.reward === 1).length;
      return {
        label: s.slice('validation/'.length),
        resolved,
        scored: scored.length,
        rate: scored.length ? resolved / scored.length : 0,
        ...wilson95(resolved, scored.length),
      };
    });
}

export interface StepSummary {
  step: number;
  episodes: number;
  terminations: Record<string, number>;
  /** Mean per episode, ms: time in the LLM, in the sandbox, grading. */
  llmMs: number;
  sandboxMs: number;
  gradeMs: number;
}

const stepSummaryCache = new Map<string, { key: string; summary: StepSummary }>();

/**
 * Per RL step, from its episodes: termination reasons and where an episode's time went. Each step's file is
 * parsed once (its summary cached by size and mtime), not kept.
 */
export function summarizeSteps(dir: string): StepSummary[] {
  return episodeSets(dir)
    .filter((s) => s.startsWith('rollouts/step-'))
    .map((set) => {
      const path = join(dir, `${set}.jsonl`);
      const key = fileKey(path);
      const hit = stepSummaryCache.get(path);
      if (hit?.key === key) return hit.summary;
      const rows = readTrajectories(dir, set).map(episodeRow);
      const mean = (f: (r: EpisodeRow) => number) =>
        rows.reduce((n, r) => n + f(r), 0) / Math.max(1, rows.length);
      const terminations: Record<string, number> = {};
      for (const r of rows) terminations[r.termination] = (terminations[r.termination] ?? 0) + 1;
      const summary = {
        step: Number(set.slice('rollouts/step-'.length)),
        episodes: rows.length,
        terminations,
        llmMs: mean((r) => r.llmMs),
        sandboxMs: mean((r) => r.sandboxMs),
        gradeMs: mean((r) => r.gradeMs),
      };
      stepSummaryCache.set(path, { key, summary });
      return summary;
    });
}
