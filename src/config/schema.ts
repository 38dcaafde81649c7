import { z } from 'zod';
import { POLICY_NAMES } from '../agent/policies/policy-sampler.ts';
import {
  advantageEstimatorNames,
  klEstimatorNames,
  lossAggregationModes,
  rolloutCorrectionLevels,
  verlPolicyLossAliases,
} from '../rl/index.ts';
import { PROVIDERS } from '../sandbox/index.ts';

/**
 * The one config schema. Keys are snake_case as the seeds write them (`rollout.n`, `algorithm.adv_estimator`,
 * `actor.clip_ratio_high`); unknown keys are rejected; every field says what it is. Cross-field checks run
 * before anything starts (`checkConfig`). `configs/defaults.yaml` is generated from this file
 * (`npm run gen:defaults`) and a test checks that it is current.
 */

/**
 * A name-valued setting: one of the names a registry implements, so the schema, `--help`, the defaults file
 * and the error all list them. `aliases` (verl's names for the same thing) load as the name they stand for.
 */
function names<const N extends string>(valid: readonly N[], aliases: Readonly<Record<string, N>> = {}) {
  const all = [...valid, ...Object.keys(aliases)] as [N, ...N[]];
  return z.enum(all).transform((v): N => aliases[v] ?? v);
}

/**
 * Names a registry implements but a run cannot use yet, with the reason the load error gives. gae needs
 * V(s_t) from a value model (critic), which no engine trains.
 */
export const REFUSED_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'algorithm.adv_estimator': {
    gae: 'gae needs critic values V(s_t) from a value model, and sandgym trains no critic; use an outcome estimator such as grpo or rloo',
  },
};

const usable = (path: string, registered: readonly string[]) =>
  registered.filter((n) => !Object.hasOwn(REFUSED_NAMES[path] ?? {}, n));

/** Policy losses the engines take (Tinker's loss_fn names); cross_entropy is SFT's. */
const RL_LOSS_FNS = ['ppo', 'importance_sampling', 'cispo'] as const;

/** A strict object whose every field has a default, so an absent section parses to the defaults. */
function section<T extends z.ZodRawShape>(shape: T) {
  return z
    .object(shape)
    .strict()
    .prefault({} as never);
}

const limits = section({
  memory_mb: z.number().int().positive().default(2048).describe('Memory of all processes together, MiB.'),
  pids: z.number().int().positive().default(512).describe('Processes and threads alive at once.'),
  cpus: z.number().positive().default(1).describe('CPU cores worth of time.'),
  disk_mb: z.number().int().positive().default(4096).describe('Bytes the sandbox may write, MiB.'),
  output_kb: z.number().int().positive().default(1024).describe("Default cap on one exec's output, KiB."),
});

const sandbox = section({
  provider: z.enum(PROVIDERS).default('local').describe('Where sandboxes run.'),
  ttl_s: z.number().int().positive().default(3600).describe('Lifetime after which gc removes a sandbox.'),
  network: z.boolean().default(false).describe('Give sandboxes network access (off: loopback only).'),
  limits,
  e2b: section({
    domain: z
      .string()
      .default('e2b.app')
      .describe('E2B domain; AGS: <region>.tencentags.com (env E2B_DOMAIN).'),
    api_url: z
      .string()
      .nullable()
      .default(null)
      .describe('Lifecycle API URL (default https://api.<domain>).'),
    sandbox_url: z.string().nullable().default(null).describe('In-sandbox API URL (self-hosted servers).'),
    template_map: z.string().nullable().default(null).describe('JSON file mapping docker image → template.'),
  }),
});

const data = section({
  train_files: z
    .array(z.string())
    .default(['bundled:swe'])
    .describe('Datasets: JSONL/Parquet files or dirs, `bundled:<name>`, or `hf:<org>/<name>[@split]`.'),
  val_files: z.array(z.string()).default([]).describe('Held-out datasets for validation (resolved rate).'),
  skip_invalid: z
    .boolean()
    .default(false)
    .describe('Skip rows that fail the schema (reported) instead of stopping.'),
  max_prompt_length: z.number().int().positive().default(4096).describe('Tokens of the first prompt.'),
  max_response_length: z
    .number()
    .int()
    .positive()
    .default(16384)
    .describe('Tokens after the first prompt: model turns plus observations.'),
  train_batch_size: z.number().int().positive().default(8).describe('Tasks per training step.'),
  shuffle: z.boolean().default(true).describe('Shuffle tasks each epoch (seeded by trainer.seed).'),
});

const env = section({
  tools: z
    .array(z.string())
    .default(['file_editor', 'search', 'execute_bash', 'finish'])
    .describe('Tools the agent gets: file_editor, search, execute_bash, pdb, finish.'),
  step_timeout_s: z.number().positive().default(90).describe('Deadline of one tool call.'),
  reward_timeout_s: z.number().positive().default(300).describe('Deadline of grading, after the episode.'),
  max_observation_chars: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('Observations are cut beyond this.'),
  scrub_git_history: z.boolean().default(true).describe('Remove refs and objects after the base commit.'),
  bash_blocklist: z
    .array(z.string())
    .default(['git', 'ipython', 'jupyter', 'nohup'])
    .describe("Commands execute_bash refuses (R2E-Gym's list); history is closed by the scrub regardless."),
});

const agent = section({
  max_steps: z.number().int().positive().default(40).describe('Model turns per episode.'),
  max_tokens_per_turn: z.number().int().positive().default(4096).describe('Completion tokens of one turn.'),
  trajectory_timeout_s: z
    .number()
    .positive()
    .default(1800)
    .describe('Wall clock of one episode (not grading).'),
  tool_call_format: z
    .enum(['function_calling', 'xml'])
    .default('function_calling')
    .describe('How tools reach the model: OpenAI tool calls, or <function=…> text in the reply.'),
  prompt: z
    .string()
    .default('auto')
    .describe('Prompt set: auto (by task kind), swe, debug, or a YAML file path.'),
});

const llm = section({
  backend: z
    .enum(['openai', 'tokens', 'hf', 'engine', 'policy'])
    .default('policy')
    .describe(
      'openai: chat API; tokens: /v1/completions with local templating; hf: the Hugging Face checkpoint dir llm.model on this CPU; engine: the trainer; policy: built-in.',
    ),
  policy: z.enum(POLICY_NAMES).default('oracle').describe('Built-in policy when backend=policy.'),
  base_url: z
    .string()
    .default('http://127.0.0.1:8000/v1')
    .describe('OpenAI-compatible server (env OPENAI_BASE_URL).'),
  api_key: z.string().nullable().default(null).describe('API key (env OPENAI_API_KEY).'),
  model: z.string().default('default').describe('Model name sent to the server.'),
  tokenizer: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'backend=tokens: model dir or Hugging Face id (Qwen/Qwen3-8B; HF_ENDPOINT, HF_HOME, HF_HUB_OFFLINE apply).',
    ),
  chat_template_kwargs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'backend=tokens: template variables, as vLLM takes them: +llm.chat_template_kwargs.enable_thinking=false.',
    ),
  temperature: z.number().min(0).default(1).describe('Sampling temperature.'),
  top_p: z.number().gt(0).max(1).default(1).describe('Nucleus sampling.'),
  request_timeout_s: z.number().positive().default(600).describe('Deadline of one request.'),
  max_retries: z.number().int().min(0).default(5).describe('Retries of 408/429/5xx and network errors.'),
  extra_body: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'Server-specific request fields sent as given (vLLM/SGLang top_k, min_p, repetition_penalty…): +llm.extra_body.top_k=20.',
    ),
});

const compactFiltering = section({
  enable: z
    .boolean()
    .default(true)
    .describe(
      'Mask (not zero-score) episodes ended by the reasons below. Infrastructure errors are always masked.',
    ),
  mask_max_response_length_exceeded: z.boolean().default(true).describe('Token budget ran out.'),
  mask_max_turns_exceeded: z.boolean().default(true).describe('max_steps reached.'),
  mask_timeout: z.boolean().default(true).describe('Wall clock ran out.'),
});

const rollout = section({
  n: z.number().int().positive().default(8).describe('Samples per task (the group of GRPO/RLOO).'),
  n_parallel: z.number().int().positive().default(16).describe('Episodes running at once.'),
  create_concurrency: z.number().int().positive().default(8).describe('Sandbox creations at once.'),
  fork: z.boolean().default(true).describe('Prepare each task once, then fork(n) its group.'),
  warm_pool: z.number().int().min(0).default(2).describe('Ready sandboxes kept per image.'),
  retry_limit: z
    .number()
    .int()
    .min(0)
    .default(2)
    .describe('Retries of an episode after an infrastructure fault.'),
  max_error_fraction: z
    .number()
    .min(0)
    .max(1)
    .default(0.25)
    .describe('Stop when more of a batch than this ended in infrastructure errors (after retries).'),
  compact_filtering: compactFiltering,
});

/** Built on demand: plugins add advantage estimators, which must then be valid names. */
const algorithm = () =>
  section({
    adv_estimator: names(usable('algorithm.adv_estimator', advantageEstimatorNames))
      .default('grpo')
      .describe(
        `Advantage estimator: ${usable('algorithm.adv_estimator', advantageEstimatorNames).join(', ')} (gae needs a critic).`,
      ),
    norm_adv_by_std_in_grpo: z.boolean().default(true).describe('false = Dr.GRPO (no std normalization).'),
    gamma: z.number().min(0).max(1).default(1).describe('Discount.'),
    lam: z.number().min(0).max(1).default(1).describe('GAE lambda.'),
    use_kl_in_reward: z
      .boolean()
      .default(false)
      .describe('Subtract β·KL(sampler ‖ the policy RL started from) from token rewards.'),
    kl_penalty: names(klEstimatorNames)
      .default('kl')
      .describe(`KL estimator in the reward (verl's names): ${klEstimatorNames.join(', ')}.`),
    kl_ctrl: section({
      type: z.enum(['fixed', 'adaptive']).default('fixed'),
      kl_coef: z.number().min(0).default(0.001),
      target_kl: z.number().positive().default(0.1),
      horizon: z.number().positive().default(10000),
    }),
    rollout_correction: section({
      tis_mode: names(['none', ...rolloutCorrectionLevels])
        .default('none')
        .describe('Truncated IS between sampler and trainer.'),
      tis_cap: z.number().positive().default(2).describe('Cap of the IS weight.'),
    }),
  });

const actor = section({
  loss_fn: names(RL_LOSS_FNS, verlPolicyLossAliases)
    .default('ppo')
    .describe(
      `Policy loss (Tinker's names): ${RL_LOSS_FNS.join(', ')}; verl's ${Object.keys(verlPolicyLossAliases).join(', ')} = ppo.`,
    ),
  clip_ratio_low: z.number().min(0).default(0.2).describe('PPO: ratio ≥ 1 − clip_ratio_low.'),
  clip_ratio_high: z
    .number()
    .min(0)
    .default(0.28)
    .describe('PPO: ratio ≤ 1 + clip_ratio_high (DAPO clip-higher).'),
  loss_agg_mode: names(lossAggregationModes)
    .default('seq-mean-token-sum')
    .describe('How token losses are averaged (verl).'),
  use_kl_loss: z
    .boolean()
    .default(false)
    .describe('verl’s KL loss term: Tinker-style losses have none; use algorithm.use_kl_in_reward.'),
  lr: z.number().positive().default(1e-6).describe('Adam learning rate.'),
  weight_decay: z.number().min(0).default(0).describe('Decoupled weight decay.'),
  grad_clip: z.number().min(0).default(1).describe('Global gradient-norm clip (0 = off).'),
  ppo_epochs: z.number().int().positive().default(1).describe('Passes over each batch.'),
  ppo_max_token_len_per_gpu: z
    .number()
    .int()
    .positive()
    .default(32768)
    .describe('Tokens per micro-batch per GPU.'),
});

const trainer = section({
  engine: z.enum(['reference', 'tinker']).default('reference').describe('Training engine.'),
  project_name: z.string().default('sandgym'),
  experiment_name: z.string().default('default'),
  default_local_dir: z.string().default('runs').describe('Runs are written to <dir>/<experiment_name>.'),
  total_epochs: z.number().int().positive().default(1),
  total_training_steps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Stop after this many steps.'),
  save_freq: z.number().int().min(0).default(5).describe('Checkpoint every K steps (0 = only at the end).'),
  max_ckpt_to_keep: z
    .number()
    .int()
    .positive()
    .default(3)
    .describe('Checkpoints kept; older ones are deleted, on the Tinker server too where it allows.'),
  test_freq: z.number().int().min(0).default(5).describe('Validate every K steps (0 = never).'),
  val_before_train: z.boolean().default(true),
  resume_mode: z
    .enum(['auto', 'disable', 'must'])
    .default('auto')
    .describe('Resume from the latest checkpoint.'),
  n_gpus_per_node: z.number().int().positive().default(1),
  nnodes: z.number().int().positive().default(1),
  seed: z.number().int().default(1),
  logger: z
    .array(z.enum(['console', 'jsonl', 'tensorboard', 'mlflow']))
    .default(['console', 'jsonl', 'tensorboard'])
    .describe('Where metrics go: jsonl is metrics.jsonl, tensorboard event files in the run directory.'),
  tags: z
    .record(z.string(), z.coerce.string())
    .default({})
    .describe('Tags of the MLflow run (+trainer.tags.team=rl).'),
});

const sft = section({
  files: z
    .array(z.string())
    .default([])
    .describe('Trajectory JSONL files to learn from (`sandgym train --sft`).'),
  only_resolved: z.boolean().default(true).describe('Learn only from trajectories that resolved their task.'),
  epochs: z.number().int().positive().default(8),
  batch_size: z.number().int().positive().default(4).describe('Trajectories per optimizer step.'),
  lr: z.number().positive().default(0.002),
  lr_schedule: z
    .enum(['constant', 'cosine'])
    .default('cosine')
    .describe('constant, or cosine decay from lr to 0 over the SFT steps (a less noisy end point).'),
});

const engine = section({
  reference: section({
    n_layers: z.number().int().positive().default(2),
    d_model: z.number().int().positive().default(128),
    n_heads: z.number().int().positive().default(4),
    context: z.number().int().positive().default(1024),
    tokenizer: z
      .string()
      .default('byte')
      .describe("byte; bpe (learned from the run's SFT data, kept in <run>/tokenizer); or a tokenizer dir."),
    bpe_merges: z.number().int().positive().default(1024).describe('Merges a learned BPE makes.'),
  }),
  tinker: section({
    base_url: z.string().default('http://127.0.0.1:8000').describe('Tinker API (env TINKER_BASE_URL).'),
    api_key: z.string().nullable().default(null).describe('env TINKER_API_KEY.'),
    base_model: z.string().default('reference-tiny'),
    lora_rank: z.number().int().positive().default(32),
    tokenizer: z
      .string()
      .nullable()
      .default(null)
      .describe(
        "The base model's tokenizer: a Hugging Face id or a local model dir (default: the server's).",
      ),
    max_context_tokens: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .describe("Context length (default: the server's, else the tokenizer dir's config.json)."),
    max_concurrent_samples: z
      .number()
      .int()
      .positive()
      .default(400)
      .describe('Sampling requests in flight at once (as the Tinker SDK); more wait their turn.'),
  }),
});

const plugins = z
  .array(z.string())
  .default([])
  .describe(
    'Modules loaded before the config is checked; each exports register(sandgym) and may add advantage estimators (examples/plugins).',
  );

/** The schema with every name registered now (built-in, and added by plugins loaded so far). */
export function buildConfigSchema() {
  return z
    .object({
      sandbox,
      data,
      env,
      agent,
      llm,
      rollout,
      algorithm: algorithm(),
      actor,
      sft,
      trainer,
      engine,
      plugins,
    })
    .strict();
}

export const configSchema = buildConfigSchema();

export type Config = z.infer<typeof configSchema>;
export type SandboxConfig = Config['sandbox'];
