import { ConfigError } from '../errors.ts';
import type { Config } from './schema.ts';

/**
 * Cross-field checks from the seeds, run before anything starts so a bad combination fails in a second,
 * not an hour into a run. Returns every problem at once.
 */
export function configProblems(c: Config): string[] {
  const problems: string[] = [];
  const seqLen = c.data.max_prompt_length + c.data.max_response_length;
  if (c.actor.ppo_max_token_len_per_gpu < seqLen) {
    problems.push(
      `actor.ppo_max_token_len_per_gpu (${c.actor.ppo_max_token_len_per_gpu}) must be at least ` +
        `data.max_prompt_length + data.max_response_length (${seqLen}), or a single trajectory cannot fit`,
    );
  }
  const samples = c.data.train_batch_size * c.rollout.n;
  const gpus = c.trainer.n_gpus_per_node * c.trainer.nnodes;
  if (samples % gpus !== 0) {
    problems.push(
      `data.train_batch_size × rollout.n (${c.data.train_batch_size} × ${c.rollout.n} = ${samples}) must be ` +
        `divisible by trainer.n_gpus_per_node × trainer.nnodes (${gpus})`,
    );
  }
  if (c.llm.backend === 'tokens' && !c.llm.tokenizer) {
    problems.push('llm.backend=tokens needs llm.tokenizer: a model directory with tokenizer.json');
  }
  const knownTools = ['file_editor', 'search', 'execute_bash', 'pdb', 'finish'];
  for (const t of c.env.tools) {
    if (!knownTools.includes(t))
      problems.push(`env.tools: unknown tool "${t}"; valid: ${knownTools.join(', ')}`);
  }
  if (!c.env.tools.includes('finish')) {
    problems.push('env.tools must include "finish": without it an episode can only end by a budget');
  }
  if (c.actor.use_kl_loss) {
    problems.push(
      'actor.use_kl_loss: the engines take Tinker-style losses (ppo, importance_sampling, cispo), which have no ' +
        'KL term; use algorithm.use_kl_in_reward=true (the penalty folded into the reward, as the Tinker ' +
        'cookbook does) with algorithm.kl_ctrl.kl_coef',
    );
  }
  return problems;
}

export function checkConfig(c: Config): void {
  const problems = configProblems(c);
  if (problems.length > 0) {
    throw new ConfigError(`invalid config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** How many sandboxes a training run will start: the number users budget cloud quota by. */
export function totalSandboxes(c: Config, datasetSize: number): number {
  const stepsPerEpoch = Math.floor(datasetSize / c.data.train_batch_size);
  const steps = c.trainer.total_training_steps ?? stepsPerEpoch * c.trainer.total_epochs;
  return steps * c.data.train_batch_size * c.rollout.n;
}
