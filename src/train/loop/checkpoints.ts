import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrainingEngine } from '../engine.ts';
import { CheckpointError } from '../errors.ts';

/** What the loop needs, besides the engine's own state, to continue exactly where it stopped. */
export interface TrainerState {
  /** Optimizer steps of the current phase done (the checkpoint is taken after this step). */
  step: number;
  /** The phase this checkpoint belongs to (`sft`, `rl`). */
  phase: string;
  /** Phases finished, in order. */
  done: string[];
  /** Validation results so far, for the curve. */
  curve: { phase: string; step: number; resolvedRate: number }[];
  /** Adaptive KL controller coefficient, when one is in use. */
  klCoef?: number;
  /** RL steps whose update was skipped for want of a learning signal (every group's rewards equal). */
  noSignalSteps?: number;
}

export interface Checkpoint {
  dir: string;
  engineDir: string;
  state: TrainerState;
}

function name(phase: string, step: number): string {
  return `${phase}-${String(step).padStart(6, '0')}`;
}

/**
 * Saves the engine (weights, optimizer, generator) and the trainer's state as one directory, atomically:
 * written beside its final name and renamed, then `latest` updated the same way — a kill at any moment
 * leaves the previous checkpoint intact and `latest` pointing at a complete one. The oldest are pruned.
 */
export async function saveCheckpoint(
  runDir: string,
  engine: TrainingEngine,
  state: TrainerState,
  keep = 3,
  warn: (message: string) => void = () => {},
): Promise<Checkpoint> {
  const root = join(runDir, 'checkpoints');
  const final = join(root, name(state.phase, state.step));
  const tmp = `${final}.tmp-${randomBytes(4).toString('hex')}`;
  await mkdir(tmp, { recursive: true });
  await engine.saveState(join(tmp, 'engine'), { name: name(state.phase, state.step) });
  await writeFile(join(tmp, 'trainer.json'), `${JSON.stringify(state, null, 2)}\n`);
  await rm(final, { recursive: true, force: true });
  await rename(tmp, final);
  const pointer = join(root, `latest.tmp-${randomBytes(4).toString('hex')}`);
  await writeFile(pointer, `${name(state.phase, state.step)}\n`);
  await rename(pointer, join(root, 'latest'));
  await prune(root, name(state.phase, state.step), keep, engine, warn);
  return { dir: final, engineDir: join(final, 'engine'), state };
}

/**
 * Keeps the newest `keep` checkpoints (`current` among them). An engine that keeps state elsewhere (a
 * Tinker server) frees it first; when that fails the local pointer is still removed, with a warning,
 * since the run no longer needs it.
 */
async function prune(
  root: string,
  current: string,
  keep: number,
  engine: TrainingEngine,
  warn: (message: string) => void,
): Promise<void> {
  const entries = (await readdir(root)).filter((e) => /^[a-z]+-\d{6}$/.test(e) && e !== current);
  // By when each was saved, not by name: `rl-000001` comes after `sft-000002`.
  const savedAt = new Map(
    await Promise.all(
      entries.map(async (e) => {
        const saved = await stat(join(root, e, 'trainer.json')).catch(() => undefined);
        return [e, saved?.mtimeMs ?? 0] as const;
      }),
    ),
  );
  const byAge = entries.sort((a, b) => savedAt.get(a)! - savedAt.get(b)! || a.localeCompare(b));
  for (const old of byAge.slice(0, Math.max(0, byAge.length - (keep - 1)))) {
    try {
      await engine.deleteState?.(join(root, old, 'engine'));
    } catch (e) {
      warn(`checkpoint ${old}: ${(e as Error).message}`);
    }
    await rm(join(root, old), { recursive: true, force: true });
  }
  for (const e of await readdir(root))
    if (e.includes('.tmp-')) await rm(join(root, e), { recursive: true, force: true });
}

/** The checkpoint `latest` points at, or undefined when the run has none. */
export async function latestCheckpoint(runDir: string): Promise<Checkpoint | undefined> {
  const root = join(runDir, 'checkpoints');
  const pointer = join(root, 'latest');
  if (!existsSync(pointer)) return undefined;
  const dir = join(root, (await readFile(pointer, 'utf8')).trim());
  try {
    const state = JSON.parse(await readFile(join(dir, 'trainer.json'), 'utf8')) as TrainerState;
    return { dir, engineDir: join(dir, 'engine'), state };
  } catch (e) {
    throw new CheckpointError(
      `checkpoint ${dir} is unreadable (${(e as Error).message}); remove it or start over`,
    );
  }
}
