import type { Command } from 'commander';
import { loadConfigWithPlugins } from '../../config/index.ts';

/** Splits `[config.yaml] key=value …`: the first argument is a config file when it looks like one. */
function configArgs(args: readonly string[], base: string[] = []): { files: string[]; overrides: string[] } {
  const files = [...base];
  const overrides: string[] = [];
  for (const a of args) (/\.ya?ml$/.test(a) && !a.includes('=') ? files : overrides).push(a);
  return { files, overrides };
}

export function registerTrainCommand(program: Command): void {
  program
    .command('train')
    .description(
      'Train a policy: SFT on trajectories (--sft) and/or RL on a dataset, on the reference engine or through ' +
        'the Tinker API. Checkpoints and metrics go to <trainer.default_local_dir>/<trainer.experiment_name>; ' +
        'rerunning the same command resumes.',
    )
    .argument(
      '[config-and-overrides...]',
      'a YAML config, then overrides like algorithm.adv_estimator=rloo rollout.n=4',
    )
    .option(
      '--sft <files...>',
      'trajectory JSONL files (e.g. from "sandgym run --policy oracle") to fine-tune on first',
    )
    .option('--rl', 'after --sft, go on with RL (default: RL only without --sft)')
    .option(
      '--resume',
      "continue from the run directory's latest checkpoint, and fail if it has none (without it a run resumes when it can: trainer.resume_mode=auto)",
    )
    .option('-o, --output <dir>', 'run directory')
    .option(
      '--dry-run',
      'check the config against the data, the provider, the LLM server and the engine (prompts within the context), then stop: no sandbox starts, nothing is written',
    )
    .action(
      async (
        args: string[],
        flags: { sft?: string[]; rl?: boolean; resume?: boolean; output?: string; dryRun?: boolean },
      ) => {
        const { files, overrides } = configArgs(args);
        const config = await loadConfigWithPlugins(files, [
          ...overrides,
          ...(flags.resume ? ['trainer.resume_mode=must'] : []),
        ]);
        // The training stack loads only now: a bad setting has failed above, in the first second.
        const job = await import('./train-job.ts');
        if (flags.dryRun) await job.dryRun(config, flags.output);
        else await job.trainJob(config, flags);
      },
    );
}

export function registerMainCommand(program: Command): void {
  program
    .command('main')
    .description(
      'The embedded default: oracle trajectories → SFT → RL of a small model on micro tasks in local ' +
        'sandboxes, printing the held-out resolved rate after each phase. Needs no cloud and no GPU.',
    )
    .argument(
      '[overrides...]',
      'config overrides on configs/micro.yaml, e.g. trainer.total_training_steps=10',
    )
    .option('-o, --output <dir>', 'run directory (default runs/micro)')
    .action(async (overrides: string[], flags: { output?: string }) => {
      await (await import('./train-job.ts')).mainJob(overrides, flags.output);
    });
}
