import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Trajectory } from '../../agent/types.ts';
import { ConfigError, DatasetError } from '../../errors.ts';
import { loadChatTemplate } from '../../llm/index.ts';
import { createKlController, updateKlController } from '../../rl/index.ts';
import type { Task } from '../../tasks/index.ts';
import type { ScoringPolicy, TrainingEngine } from '../engine.ts';
import { CheckpointError } from '../errors.ts';
import { latestCheckpoint, saveCheckpoint, type TrainerState } from './checkpoints.ts';
import {
  type KlReference,
  type RunContext,
  rlStep,
  runSft,
  seededOrder,
  sftSequences,
  validate,
} from './phases.ts';

export interface TrainRunOptions extends RunContext {
  trainTasks: readonly Task[];
  valTasks: readonly Task[];
  /** Trajectories to fine-tune on first; no SFT phase when absent. */
  sftTrajectories?: readonly Trajectory[];
  /** Run the RL phase. */
  rl: boolean;
  /**
   * The frozen reference policy of the KL penalty from weights saved in a directory: a second engine,
   * or a Tinker server's sampler scoring them (see TinkerEngine.samplingPolicy).
   */
  referenceFrom?: (weightsDir: string) => Promise<ScoringPolicy>;
}

export type Curve = TrainerState['curve'];

/**
 * A whole training run: [validate] → [SFT] → [validate] → RL steps with validation every
 * `trainer.test_freq` and checkpoints every `trainer.save_freq` → validate. Every phase resumes from the
 * run directory's latest checkpoint (weights, optimizer state, the step within the phase, the curve so
 * far), so a killed run continues at the right step with the same state; a finished phase is not redone.
 */
export async function trainRun(o: TrainRunOptions): Promise<Curve> {
  const { config } = o;
  const ckpt = config.trainer.resume_mode === 'disable' ? undefined : await latestCheckpoint(o.runDir);
  if (config.trainer.resume_mode === 'must' && !ckpt) {
    throw new CheckpointError(
      `${o.runDir} has no checkpoint to resume from (--resume, trainer.resume_mode=must); drop --resume to start it`,
    );
  }
  const state: TrainerState = ckpt?.state ?? { phase: 'init', step: 0, done: [], curve: [] };
  if (ckpt) {
    await o.engine.loadState(ckpt.engineDir, { optimizer: true });
    o.log(`resumed from ${ckpt.dir}: phase ${state.phase}, step ${state.step}`);
  }
  const checkpoint = async (phase: string, step: number, finished = false) => {
    state.phase = phase;
    state.step = step;
    if (finished && !state.done.includes(phase)) state.done.push(phase);
    await saveCheckpoint(o.runDir, o.engine, state, config.trainer.max_ckpt_to_keep, o.log);
  };
  const point = async (phase: string, step: number) => {
    if (o.valTasks.length === 0 || state.curve.some((c) => c.phase === phase && c.step === step)) return;
    const s = await validate(o, o.valTasks, `${phase}-${step}`);
    if (o.signal?.aborted) return;
    state.curve.push({ phase, step, resolvedRate: s.resolvedRate });
    await o.metrics.log(step, { [`val/${phase}_resolved_rate`]: s.resolvedRate });
    o.log(
      `validation after ${phase} step ${step}: ${s.resolved}/${s.scored} resolved (${(100 * s.resolvedRate).toFixed(1)}%)`,
    );
  };

  if (config.trainer.val_before_train) await point('init', 0);

  if (o.sftTrajectories && !o.signal?.aborted) {
    const template = await loadChatTemplate(o.engine.getInfo().tokenizer_dir);
    const seqs = await sftSequences(o.sftTrajectories, template, config.sft.only_resolved);
    if (seqs.length === 0)
      throw new DatasetError(
        'SFT: no trajectory to learn from; sft.only_resolved keeps only those that resolved their task',
      );
    const perEpoch = Math.ceil(seqs.length / config.sft.batch_size);
    if (!state.done.includes('sft')) {
      o.log(`sft: ${seqs.length} trajectories, ${config.sft.epochs} epochs`);
      await runSft(o, seqs, {
        startStep: state.phase === 'sft' ? state.step : 0,
        afterStep: async (step, last) => {
          if (last || step % perEpoch === 0) await checkpoint('sft', step, last);
        },
      });
      if (o.signal?.aborted) return state.curve;
    }
    // Also when a run killed during this validation resumes: the weights are still SFT's until RL starts.
    if (state.phase === 'sft') await point('sft', perEpoch * config.sft.epochs);
  }

  if (o.rl && !state.done.includes('rl') && !o.signal?.aborted) {
    const batch = config.data.train_batch_size;
    const perEpoch = Math.max(1, Math.floor(o.trainTasks.length / batch));
    const total = config.trainer.total_training_steps ?? perEpoch * config.trainer.total_epochs;
    const start = state.phase === 'rl' ? state.step : 0;
    await dropStaleRollouts(o.runDir, start + 1);
    const sftEnd = start === 0 ? await latestCheckpoint(o.runDir) : undefined;
    if (sftEnd?.state.phase === 'sft') {
      // RL starts from the SFT weights with a fresh optimizer, as verl and Tinker recipes do: SFT's large
      // early gradients linger in Adam's second moment and would shrink every RL step many times over.
      await o.engine.loadState(sftEnd.engineDir, { optimizer: false });
    }
    const kl = config.algorithm.use_kl_in_reward ? await klReference(o, state) : undefined;
    try {
      for (let step = start + 1; step <= total && !o.signal?.aborted; step++) {
        const epoch = Math.floor((step - 1) / perEpoch);
        const order = config.data.shuffle
          ? seededOrder(o.trainTasks.length, config.trainer.seed * 31 + epoch)
          : o.trainTasks.map((_, i) => i);
        const i = (step - 1) % perEpoch;
        const tasks = order.slice(i * batch, (i + 1) * batch).map((j) => o.trainTasks[j]!);
        const metrics = await rlStep(o, tasks, step, kl);
        if (o.signal?.aborted) break;
        if (kl && metrics['kl/observed'] !== undefined) {
          const k = config.algorithm.kl_ctrl;
          const ctrl = createKlController({
            type: k.type,
            klCoef: kl.coef,
            targetKl: k.target_kl,
            horizon: k.horizon,
          });
          kl.coef = updateKlController(ctrl, metrics['kl/observed'], metrics['rollout/trained'] ?? 0).coef;
          state.klCoef = kl.coef;
        }
        if (metrics['rl/no_signal']) state.noSignalSteps = (state.noSignalSteps ?? 0) + 1;
        await o.metrics.log(step, {
          ...metrics,
          'rl/epoch': epoch + (i + 1) / perEpoch,
          'rl/no_signal_steps': state.noSignalSteps ?? 0,
        });
        o.log(
          `rl step ${step}/${total}: reward ${(metrics['reward/mean'] ?? 0).toFixed(3)}, resolved ` +
            `${(100 * (metrics['reward/resolved_rate'] ?? 0)).toFixed(1)}%, trained on ${metrics['rollout/trained']} ` +
            `trajectories (${(metrics['perf/rollout_s'] ?? 0).toFixed(0)} s rollout, ${(metrics['perf/train_s'] ?? 0).toFixed(0)} s train)` +
            (metrics['rl/no_signal']
              ? `; no learning signal, update skipped (${state.noSignalSteps} such steps)`
              : ''),
        );
        const last = step === total;
        const save = config.trainer.save_freq;
        if (last || (save > 0 && step % save === 0)) await checkpoint('rl', step, last);
        const test = config.trainer.test_freq;
        if (last || (test > 0 && step % test === 0)) await point('rl', step);
      }
    } finally {
      await kl?.engine.close();
    }
  }
  return state.curve;
}

/**
 * The KL penalty's reference policy: the weights RL started from, saved once into the run directory (so a
 * resumed run compares with the same policy) and loaded into a second engine; β as the last checkpoint left it.
 */
async function klReference(o: TrainRunOptions, state: TrainerState): Promise<KlReference> {
  if (!o.referenceFrom) {
    throw new ConfigError(
      'algorithm.use_kl_in_reward needs a reference policy, which this caller cannot make',
    );
  }
  const dir = join(o.runDir, 'reference-policy');
  if (!existsSync(dir)) {
    if (state.phase === 'rl')
      o.log('no reference policy saved at the start of RL: the current weights become it');
    const tmp = `${dir}.tmp`;
    await rm(tmp, { recursive: true, force: true });
    await o.engine.saveState(tmp, { name: 'reference-policy', forSampling: true });
    await rename(tmp, dir);
  }
  return { engine: await o.referenceFrom(dir), coef: state.klCoef ?? o.config.algorithm.kl_ctrl.kl_coef };
}

/** Rollouts of steps after the one resuming were sampled by weights the checkpoint does not have: drop them. */
async function dropStaleRollouts(runDir: string, resumeStep: number): Promise<void> {
  const dir = join(runDir, 'rollouts');
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const m = /^step-(\d+)\.jsonl$/.exec(f);
    if (m && Number(m[1]) > resumeStep) await rm(join(dir, f), { force: true });
  }
}

/** The curve as a small text chart. */
export function formatCurve(curve: Curve): string {
  return curve
    .map((c) => {
      const bar = '█'.repeat(Math.round(c.resolvedRate * 40));
      return `${`${c.phase} ${c.step}`.padEnd(12)} ${(100 * c.resolvedRate).toFixed(1).padStart(5)}% ${bar}`;
    })
    .join('\n');
}
