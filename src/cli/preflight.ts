import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { firstPrompt } from '../agent/episode.ts';
import type { Config } from '../config/index.ts';
import { errorMessage, SandgymError } from '../errors.ts';
import { type ChatTemplate, loadChatTemplate, modelSourceFromEnv, resolveModelDir } from '../llm/index.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import type { Task } from '../tasks/index.ts';
import type { TrainingEngine } from '../train/engine.ts';
import { createTrainingEngine } from '../train/loop/index.ts';
import { isBundled, loadDatasets } from './commands/datasets.ts';
import { providerFor } from './provider.ts';

/** One check's outcome: `ok`, or what is wrong and what to do. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface PreflightOptions {
  /** The run directory: a learned BPE tokenizer of an earlier run of it is the one to measure with. */
  runDir: string;
  env?: Record<string, string | undefined>;
  /** Deadline of the LLM server probe. Default 5 s. */
  probeTimeoutMs?: number;
}

async function timed(name: string, run: () => Promise<string>, checks: Check[]): Promise<boolean> {
  const t0 = performance.now();
  try {
    checks.push({ name, ok: true, detail: await run(), ms: performance.now() - t0 });
    return true;
  } catch (e) {
    checks.push({ name, ok: false, detail: errorMessage(e), ms: performance.now() - t0 });
    return false;
  }
}

/**
 * What `sandgym train --dry-run` checks, in seconds and before any sandbox starts, that a run would otherwise
 * find out hours in: the datasets load; the provider answers and has (or can build) every image; the LLM
 * server answers (`llm.backend` openai/tokens); the training engine starts (a Tinker server: reachable,
 * serving the model) and its tokenizer loads; every task's first prompt fits `data.max_prompt_length` and the
 * model's context. The config itself was checked when it loaded. Every check runs; each says what is wrong.
 */
export async function preflight(config: Config, o: PreflightOptions): Promise<Check[]> {
  const checks: Check[] = [];
  let tasks: Task[] = [];
  await timed(
    'datasets',
    async () => {
      const train = await loadDatasets(config.data.train_files, { skipInvalid: config.data.skip_invalid });
      const val = await loadDatasets(config.data.val_files, { skipInvalid: config.data.skip_invalid });
      if (train.length < config.data.train_batch_size) {
        throw new Error(
          `${train.length} training tasks, fewer than data.train_batch_size=${config.data.train_batch_size}`,
        );
      }
      tasks = [...train, ...val];
      return `${train.length} training tasks, ${val.length} held out`;
    },
    checks,
  );

  let provider: SandboxProvider | undefined;
  await timed(
    `sandbox provider ${config.sandbox.provider}`,
    async () => {
      provider = await providerFor(config);
      const images = [...new Set(tasks.map((t) => t.image))];
      const present = await Promise.all(images.map((i) => provider!.hasImage(i)));
      const buildable = new Set(tasks.filter(isBundled).map((t) => t.image));
      const missing = images.filter((i, k) => !present[k] && !buildable.has(i));
      if (missing.length) {
        throw new Error(
          `${missing.length} image(s) absent and not buildable, e.g. ${missing[0]}; pull them, or "sandgym images build"`,
        );
      }
      const toBuild = images.filter((_, k) => !present[k]).length;
      return `${images.length} images: ${images.length - toBuild} present${toBuild ? `, ${toBuild} bundled to build` : ''}`;
    },
    checks,
  );
  await provider?.close();

  if (config.llm.backend === 'openai' || config.llm.backend === 'tokens') {
    await timed(`LLM server ${config.llm.base_url}`, () => probeModels(config, o), checks);
  }

  // Which tokenizer and context the episodes' prompts meet: the server's model, or the engine being trained.
  let template: ChatTemplate | undefined;
  let context: number | undefined;
  const tokenizer =
    config.llm.backend === 'hf' ? (config.llm.tokenizer ?? config.llm.model) : config.llm.tokenizer;
  if ((config.llm.backend === 'tokens' || config.llm.backend === 'hf') && tokenizer) {
    await timed(
      `tokenizer ${tokenizer}`,
      async () => {
        const dir = await resolveModelDir(tokenizer, modelSourceFromEnv(o.env ?? process.env));
        template = await loadChatTemplate(dir, config.llm.chat_template_kwargs);
        context = template.maxContextTokens;
        return `loaded; context ${context ?? 'not stated'}`;
      },
      checks,
    );
  } else {
    let engine: TrainingEngine | undefined;
    await timed(
      `training engine ${config.trainer.engine}`,
      async () => {
        const tokenizerDir = referenceTokenizer(config, o.runDir);
        if (tokenizerDir === null) {
          return 'starts at the run (its BPE tokenizer is learned from the SFT data first): prompts not measured';
        }
        engine = await createTrainingEngine(config, o.env ?? process.env, tokenizerDir);
        const info = engine.getInfo();
        template = await loadChatTemplate(info.tokenizer_dir);
        context = info.max_seq_len;
        return `${info.model_name}, context ${context} tokens`;
      },
      checks,
    );
    await engine?.close();
  }

  if (template && tasks.length) {
    const t = template;
    await timed('first prompts fit', async () => measurePrompts(tasks, config, t, context), checks);
  }
  return checks;
}

/** The reference engine's tokenizer dir: undefined for bytes, null for a BPE not learned yet. */
function referenceTokenizer(config: Config, runDir: string): string | undefined | null {
  if (config.trainer.engine === 'tinker') return undefined;
  const choice = config.engine.reference.tokenizer;
  if (choice === 'byte') return undefined;
  if (choice !== 'bpe') return choice;
  const learned = join(runDir, 'tokenizer');
  return existsSync(join(learned, 'tokenizer.json')) ? learned : null;
}

/**
 * Every task's first prompt against `data.max_prompt_length` and the model's context: the longest, or an
 * Error saying which task is over which limit (else every episode ends before its first turn, masked).
 */
export function measurePrompts(
  tasks: readonly Task[],
  config: Config,
  template: ChatTemplate,
  context: number | undefined,
): string {
  let longest = { tokens: 0, task: '' };
  for (const task of tasks) {
    const p = firstPrompt(task, config);
    const text = template.render(p.messages, {
      ...(p.tools ? { tools: p.tools } : {}),
      addGenerationPrompt: true,
    });
    const tokens = template.encode(text).length;
    if (tokens > longest.tokens) longest = { tokens, task: task.id };
  }
  const limit = Math.min(config.data.max_prompt_length, context ?? Number.POSITIVE_INFINITY);
  const what = `the longest first prompt (task ${longest.task}) is ${longest.tokens} tokens`;
  const over = [
    ...(longest.tokens > config.data.max_prompt_length
      ? [`over data.max_prompt_length=${config.data.max_prompt_length}`]
      : []),
    ...(context !== undefined && longest.tokens >= context
      ? [
          `leaving no room in the model's context of ${context} (every episode would end before its first turn)`,
        ]
      : []),
  ];
  if (over.length) throw new Error(`${what}, ${over.join(', and ')}`);
  return `${what} (limit ${limit}${context !== undefined ? `, context ${context}` : ''})`;
}

/**
 * At the start of a run that samples from an LLM server (`llm.backend` openai or tokens): the server
 * answers and serves `llm.model`, or the run stops now — not after every episode has spent its retries.
 */
export async function checkLlmServer(config: Config): Promise<void> {
  if (config.llm.backend !== 'openai' && config.llm.backend !== 'tokens') return;
  try {
    await probeModels(config, {});
  } catch (e) {
    throw new SandgymError(
      `llm: ${errorMessage(e)} ("sandgym train --dry-run" checks everything a run needs)`,
    );
  }
}

/** `GET /models` on the LLM server: reachable, the key accepted, the model served. */
async function probeModels(
  config: Config,
  o: Pick<PreflightOptions, 'env' | 'probeTimeoutMs'>,
): Promise<string> {
  const base = config.llm.base_url.replace(/\/+$/, '');
  const key = config.llm.api_key ?? (o.env ?? process.env).OPENAI_API_KEY;
  const res = await fetch(`${base}/models`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
    signal: AbortSignal.timeout(o.probeTimeoutMs ?? 5000),
  }).catch((e: unknown) => {
    throw new Error(`GET ${base}/models: ${errorMessage((e as Error).cause ?? e)}; is the server running?`);
  });
  if (!res.ok) throw new Error(`GET ${base}/models: HTTP ${res.status}`);
  const body = (await res.json().catch(() => ({}))) as { data?: { id?: string }[] };
  const served = (body.data ?? []).map((m) => m.id);
  if (served.length && !served.includes(config.llm.model)) {
    throw new Error(`llm.model "${config.llm.model}" is not served there; it serves ${served.join(', ')}`);
  }
  return `serves ${config.llm.model}`;
}

/** The checks as lines, and a last line saying whether the run may start. */
export function formatChecks(checks: readonly Check[]): string {
  const lines = checks.map(
    (c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name} (${(c.ms / 1000).toFixed(2)} s): ${c.detail}`,
  );
  const failed = checks.filter((c) => !c.ok).length;
  lines.push(failed ? `${failed} check(s) failed: the run would not start` : 'all checks passed');
  return lines.join('\n');
}
