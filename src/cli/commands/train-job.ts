import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createSamplerFactory } from '../../agent/samplers.ts';
import type { Trajectory } from '../../agent/types.ts';
import { type Config, loadConfigWithPlugins, totalSandboxes } from '../../config/index.ts';
import { ConfigError, DatasetError, errorMessage } from '../../errors.ts';
import { loadChatTemplate } from '../../llm/index.ts';
import { RolloutEngine, TrajectoryStore } from '../../rollout/index.ts';
import type { SandboxProvider } from '../../sandbox/index.ts';
import type { Task } from '../../tasks/index.ts';
import {
  type Curve,
  createTrainingEngine,
  fanOut,
  formatCurve,
  JsonlMetrics,
  type MetricsSink,
  MlflowMetrics,
  runTokenizerDir,
  TensorboardMetrics,
  trainRun,
} from '../../train/loop/index.ts';
import { TinkerEngine } from '../../train/tinker/index.ts';
import { VERSION } from '../../version.ts';
import { checkLlmServer, formatChecks, measurePrompts, preflight } from '../preflight.ts';
import { createProgress } from '../progress.ts';
import { providerFor } from '../provider.ts';
import { ensureTaskImages, loadDatasets } from './datasets.ts';
import { gcProviders } from './gc.ts';

/** The embedded default's config: micro tasks, the reference engine, local sandboxes. */
export const MAIN_CONFIG = new URL('../../../configs/micro.yaml', import.meta.url).pathname;

interface Session {
  config: Config;
  runDir: string;
  provider: SandboxProvider;
  metrics: MetricsSink;
  signal: AbortSignal;
  log: (line: string) => void;
  end: (status: 'FINISHED' | 'FAILED' | 'KILLED') => Promise<void>;
}

function runDirOf(config: Config, output: string | undefined): string {
  return output ?? join(config.trainer.default_local_dir, config.trainer.experiment_name);
}

/** What train and main share: the run directory, sandboxes, metrics sinks, and Ctrl-C that stops cleanly. */
async function openSession(config: Config, output: string | undefined): Promise<Session> {
  const runDir = runDirOf(config, output);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'config.yaml'), stringify({ sandgym_version: VERSION, ...config }));
  const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  await gcProviders([config.sandbox.provider], {}, config);
  const provider = await providerFor(config);
  const sinks: MetricsSink[] = [];
  if (config.trainer.logger.includes('jsonl')) sinks.push(new JsonlMetrics(join(runDir, 'metrics.jsonl')));
  if (config.trainer.logger.includes('tensorboard')) sinks.push(new TensorboardMetrics(runDir));
  const mlflowUri = process.env.MLFLOW_TRACKING_URI;
  if (mlflowUri && config.trainer.logger.includes('mlflow')) {
    const idFile = join(runDir, 'mlflow-run-id');
    const existing = existsSync(idFile) ? readFileSync(idFile, 'utf8').trim() : undefined;
    try {
      const m = await MlflowMetrics.open(
        mlflowUri,
        config.trainer.project_name,
        config.trainer.experiment_name,
        existing,
        log,
        config.trainer.tags,
      );
      writeFileSync(idFile, `${m.runId}\n`);
      sinks.push(m);
    } catch (e) {
      log(`MLflow at ${mlflowUri} is not reachable (${errorMessage(e)}); metrics go to metrics.jsonl only`);
    }
  }
  const metrics = fanOut(sinks);
  const ac = new AbortController();
  const stop = () => {
    if (ac.signal.aborted) process.exit(130);
    log('stopping after the running episodes end (Ctrl-C again to force); rerun the same command to resume');
    ac.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    config,
    runDir,
    provider,
    metrics,
    signal: ac.signal,
    log,
    end: async (status) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await metrics.close(ac.signal.aborted ? 'KILLED' : status);
      await provider.close();
    },
  };
}

async function loadSplits(s: Session): Promise<{ train: Task[]; val: Task[] }> {
  const train = await loadDatasets(s.config.data.train_files, { skipInvalid: s.config.data.skip_invalid });
  const val = await loadDatasets(s.config.data.val_files, { skipInvalid: s.config.data.skip_invalid });
  await ensureTaskImages([...train, ...val], s.provider);
  const rlSandboxes = totalSandboxes(s.config, train.length);
  s.log(`${train.length} training tasks, ${val.length} held out; RL starts ${rlSandboxes} episodes`);
  return { train, val };
}

/** Runs `trainRun` with the session's engine and writes the curve beside the checkpoints. */
async function train(
  s: Session,
  tasks: { train: Task[]; val: Task[] },
  sft: Trajectory[] | undefined,
  rl: boolean,
) {
  const tokenizerDir = await runTokenizerDir(s.config, s.runDir, sft);
  const engine = await createTrainingEngine(s.config, process.env, tokenizerDir, s.log);
  try {
    // The check of --dry-run, on every run before the first episode: prompts that cannot fit would
    // otherwise end every episode before its first turn, masked, and train on nothing.
    if (rl || s.config.trainer.val_before_train || s.config.trainer.test_freq > 0) {
      const info = engine.getInfo();
      const template = await loadChatTemplate(info.tokenizer_dir);
      try {
        measurePrompts([...tasks.train, ...tasks.val], s.config, template, info.max_seq_len);
      } catch (e) {
        throw new ConfigError(
          `${errorMessage(e)}; raise the limit, shorten the prompt (agent.prompt), or use a model with a longer context`,
        );
      }
    }
    const curve = await trainRun({
      ...s,
      engine,
      trainTasks: tasks.train,
      valTasks: tasks.val,
      ...(sft ? { sftTrajectories: sft } : {}),
      rl,
      referenceFrom: async (dir) => {
        // On a Tinker server, a sampler scores the reference weights (as the Tinker cookbook does);
        // else, and for references saved without sampler weights, a second engine holds them.
        const sampler = engine instanceof TinkerEngine ? await engine.samplingPolicy(dir) : undefined;
        if (sampler) return sampler;
        const reference = await createTrainingEngine(s.config, process.env, tokenizerDir);
        await reference.loadState(dir, { optimizer: false });
        return reference;
      },
    });
    writeFileSync(join(s.runDir, 'curve.json'), `${JSON.stringify(curve, null, 2)}\n`);
    if (curve.length) process.stdout.write(`held-out resolved rate:\n${formatCurve(curve)}\n`);
    return curve;
  } finally {
    await engine.close();
  }
}

function readTrajectories(files: readonly string[]): Trajectory[] {
  return files.flatMap((f) => {
    if (!existsSync(f))
      throw new DatasetError(`SFT data ${f} does not exist; make it with "sandgym run --policy oracle"`);
    const store = TrajectoryStore.open(f);
    const all = store.all();
    store.close();
    return all;
  });
}

/** `sandgym train --dry-run`: the preflight checks, printed; exit code 1 when one fails. */
export async function dryRun(config: Config, output: string | undefined): Promise<void> {
  const checks = await preflight(config, { runDir: runDirOf(config, output) });
  process.stdout.write(`${formatChecks(checks)}\n`);
  if (checks.some((c) => !c.ok)) process.exitCode = 1;
}

/** `sandgym train`: SFT on trajectories (flags.sft or sft.files) and/or RL, resuming what the run dir has. */
export async function trainJob(config: Config, flags: { sft?: string[]; rl?: boolean; output?: string }) {
  // RL samples from the LLM server only with llm.backend=tokens; otherwise from the engine.
  if (config.llm.backend === 'tokens') await checkLlmServer(config);
  const s = await openSession(config, flags.output);
  let status: 'FINISHED' | 'FAILED' = 'FAILED';
  try {
    const tasks = await loadSplits(s);
    const sft = flags.sft
      ? readTrajectories(flags.sft)
      : config.sft.files.length
        ? readTrajectories(config.sft.files)
        : undefined;
    await train(s, tasks, sft, !sft || Boolean(flags.rl));
    status = 'FINISHED';
  } finally {
    await s.end(status);
  }
}

/**
 * The embedded default, end to end on this machine: oracle trajectories on the training split, then SFT on
 * them, then RL, with the held-out resolved rate measured before, after SFT and during RL.
 */
export async function mainJob(overrides: readonly string[], output?: string): Promise<Curve> {
  const config = await loadConfigWithPlugins([MAIN_CONFIG], overrides);
  const s = await openSession(config, output);
  let status: 'FINISHED' | 'FAILED' = 'FAILED';
  try {
    const tasks = await loadSplits(s);
    const oracleConfig: Config = { ...config, llm: { ...config.llm, backend: 'policy', policy: 'oracle' } };
    const store = TrajectoryStore.open(join(s.runDir, 'sft', 'oracle.jsonl'));
    const pending = tasks.train.filter(
      (t) => (store.get(`${t.id}#0`)?.termination ?? 'error') === 'error',
    ).length;
    if (pending > 0) {
      s.log(`collecting oracle trajectories for SFT (${pending} episodes)`);
      const progress = createProgress('oracle episodes', pending);
      await new RolloutEngine({
        provider: s.provider,
        config: oracleConfig,
        samplers: await createSamplerFactory(oracleConfig),
        store,
        signal: s.signal,
        maxErrorFraction: config.rollout.max_error_fraction,
        label: 'oracle trajectories for SFT',
        onTrajectory: () => progress.tick(),
      }).run(tasks.train, 1);
      progress.stop();
    }
    const oracle = store.forTasks(tasks.train, 1);
    store.close();
    const curve = s.signal.aborted ? [] : await train(s, tasks, oracle, true);
    status = 'FINISHED';
    return curve;
  } finally {
    await s.end(status);
  }
}
