import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { createSamplerFactory } from '../../agent/samplers.ts';
import { type Config, loadConfigWithPlugins } from '../../config/index.ts';
import {
  checkErrorFraction,
  formatSummary,
  RolloutEngine,
  summarize,
  TrajectoryStore,
  trajectoriesToParquet,
} from '../../rollout/index.ts';
import { VERSION } from '../../version.ts';
import { checkLlmServer } from '../preflight.ts';
import { createProgress } from '../progress.ts';
import { providerFor } from '../provider.ts';
import { ensureTaskImages, loadDatasets } from './datasets.ts';
import { gcProviders } from './gc.ts';

interface RunFlags {
  config: string[];
  dataset?: string[];
  provider?: string;
  policy?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  tokenizer?: string;
  nParallel?: string;
  maxSteps?: string;
  samples: string;
  limit?: string;
  output?: string;
  skipInvalid?: boolean;
  toolFormat?: string;
}

/** Command-line flags as config overrides, so flags, files and `key=value` all meet in one validated config. */
function flagOverrides(f: RunFlags): string[] {
  const o: string[] = [];
  if (f.dataset) o.push(`data.train_files=${JSON.stringify(f.dataset)}`);
  if (f.provider) o.push(`sandbox.provider=${f.provider}`);
  if (f.policy) o.push('llm.backend=policy', `llm.policy=${f.policy}`);
  if (f.baseUrl) o.push(`llm.base_url=${f.baseUrl}`, `llm.backend=${f.tokenizer ? 'tokens' : 'openai'}`);
  if (f.tokenizer) o.push(`llm.tokenizer=${f.tokenizer}`);
  if (f.model) o.push(`llm.model=${f.model}`);
  if (f.apiKey) o.push(`llm.api_key=${f.apiKey}`);
  if (f.nParallel) o.push(`rollout.n_parallel=${f.nParallel}`);
  if (f.maxSteps) o.push(`agent.max_steps=${f.maxSteps}`);
  if (f.skipInvalid) o.push('data.skip_invalid=true');
  if (f.toolFormat) o.push(`agent.tool_call_format=${f.toolFormat}`);
  return o;
}

function defaultOutput(config: Config, samples: number): string {
  const data = config.data.train_files.map((d) => d.replace(/[^A-Za-z0-9._-]+/g, '_')).join('+');
  const who =
    config.llm.backend === 'policy' ? config.llm.policy : config.llm.model.replace(/[^A-Za-z0-9._-]+/g, '_');
  return join('runs', `run-${who}-${data}-n${samples}`);
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(
      'Solve the tasks of a dataset with an LLM (or a built-in policy) in sandboxes and grade every episode. ' +
        'Trajectories are appended to <output>/trajectories.jsonl as they finish; running the same command ' +
        'again resumes.',
    )
    .argument('[overrides...]', 'config overrides, e.g. agent.max_steps=30 rollout.n_parallel=8')
    .option('-c, --config <file...>', 'YAML config files, applied in order', [])
    .option(
      '-d, --dataset <spec...>',
      'datasets: files, dirs, bundled:swe, bundled:debug, hf:<org>/<name>[@split]',
    )
    .option('--provider <name>', 'sandbox provider: local, docker, e2b')
    .option('--policy <name>', 'built-in policy instead of an LLM: oracle, noop, malformed')
    .option('--base-url <url>', 'OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1')
    .option('--model <name>', 'model name as the server knows it')
    .option('--api-key <key>', 'API key (default: env OPENAI_API_KEY)')
    .option(
      '--tokenizer <dir>',
      'model dir or Hugging Face id with tokenizer.json: token-in/token-out against /v1/completions',
    )
    .option('--n-parallel <n>', 'episodes at once')
    .option('--max-steps <n>', 'model turns per episode')
    .option('--samples <n>', 'episodes per task', '1')
    .option('--limit <n>', 'only the first n tasks')
    .option('--tool-format <format>', 'function_calling or xml')
    .option('--skip-invalid', 'skip dataset rows that fail the schema (reported) instead of stopping')
    .option('-o, --output <dir>', 'run directory (default: runs/run-<policy>-<dataset>-n<samples>)')
    .action(async (overrides: string[], flags: RunFlags) => {
      await runCommand(overrides, flags);
    });
}

async function runCommand(overrides: string[], flags: RunFlags): Promise<void> {
  const config = await loadConfigWithPlugins(flags.config, [...flagOverrides(flags), ...overrides]);
  const samples = Number(flags.samples);
  const out = flags.output ?? defaultOutput(config, samples);
  await checkLlmServer(config);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'config.yaml'), stringify({ sandgym_version: VERSION, ...config }));

  await gcProviders([config.sandbox.provider], {}, config);
  let tasks = await loadDatasets(config.data.train_files, { skipInvalid: config.data.skip_invalid });
  if (flags.limit) tasks = tasks.slice(0, Number(flags.limit));

  const provider = await providerFor(config);
  const store = TrajectoryStore.open(join(out, 'trajectories.jsonl'));
  const ac = new AbortController();
  const stop = () => {
    process.stderr.write(
      '\nstopping: waiting for running episodes to close their sandboxes (again to force)\n',
    );
    if (ac.signal.aborted) process.exit(130);
    ac.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await ensureTaskImages(tasks, provider);
    const pending = tasks.length * samples - tasks.reduce((n, t) => n + countDone(store, t.id, samples), 0);
    process.stderr.write(
      `${tasks.length} tasks × ${samples} = ${tasks.length * samples} episodes, ${pending} to run → ${out}\n`,
    );
    const progress = createProgress('episodes', pending);
    let resolved = 0;
    let scored = 0;
    const engine = new RolloutEngine({
      provider,
      config,
      samplers: await createSamplerFactory(config),
      store,
      signal: ac.signal,
      maxErrorFraction: config.rollout.max_error_fraction,
      label: `sandgym run → ${out}`,
      onTrajectory: (t) => {
        if (t.reward !== null) scored++;
        if (t.reward === 1) resolved++;
        progress.tick({ resolved: `${resolved}/${scored}`, last: t.termination });
      },
    });
    await engine.run(tasks, samples);
    progress.stop();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await provider.close();
  }
  const ids = new Set(tasks.map((t) => t.id));
  const summary = summarize(store.all().filter((t) => ids.has(t.taskId) && t.sample < samples));
  writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(out, 'trajectories.parquet'), Buffer.from(trajectoriesToParquet(store.all())));
  store.close();
  process.stdout.write(`${formatSummary(summary)}\nwritten to ${out}\n`);
  const ran = store.forTasks(tasks, samples);
  checkErrorFraction(ran, config.rollout.max_error_fraction, `sandgym run → ${out}`);
  if (ac.signal.aborted) process.exitCode = 130;
}

function countDone(store: TrajectoryStore, taskId: string, samples: number): number {
  let n = 0;
  for (let s = 0; s < samples; s++)
    if ((store.get(`${taskId}#${s}`)?.termination ?? 'error') !== 'error') n++;
  return n;
}
