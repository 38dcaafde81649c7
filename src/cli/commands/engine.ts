import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../errors.ts';
import { MODEL_PRESETS, type ModelPreset } from '../../train/reference/index.ts';
import { EngineServer, type EngineServerOptions } from '../../train/server/index.ts';

interface ServeFlags {
  port: string;
  host: string;
  apiKey?: string;
  model: string;
  seed: string;
  weightsDir: string;
  threads?: string;
  longPollSeconds: string;
  compat: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`--${flag} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** The flags as server options, every one checked. */
export function serveOptions(flags: ServeFlags): EngineServerOptions {
  if (!Object.hasOwn(MODEL_PRESETS, flags.model)) {
    throw new ConfigError(
      `--model must be one of ${Object.keys(MODEL_PRESETS).join(', ')}, got "${flags.model}"`,
    );
  }
  if (flags.compat !== 'tinker' && flags.compat !== 'skyrl') {
    throw new ConfigError(`--compat must be tinker or skyrl, got "${flags.compat}"`);
  }
  return {
    compat: flags.compat,
    host: flags.host,
    port: integer('port', flags.port, 0, 65_535),
    apiKey: flags.apiKey || undefined,
    model: flags.model as ModelPreset,
    seed: integer('seed', flags.seed, 0),
    weightsDir: resolve(flags.weightsDir),
    threads: flags.threads === undefined ? undefined : integer('threads', flags.threads, 1, 64),
    longPollMs: integer('long-poll-seconds', flags.longPollSeconds, 1, 3_600) * 1000,
  };
}

export function registerEngineCommand(program: Command): void {
  const engine = program.command('engine').description('Training engines.');
  engine
    .command('serve')
    .description(
      'Serve the reference engine over the Tinker API (JSON under /api/v1), so the tinker engine ' +
        '(trainer.engine=tinker, TINKER_BASE_URL) trains it over HTTP. Runs until interrupted.',
    )
    .option('--port <n>', 'port to listen on; 0 picks a free one', '8000')
    .option('--host <address>', 'address to bind; anything but loopback wants --api-key', '127.0.0.1')
    .option('--api-key <key>', 'require this key in X-API-Key (clients set TINKER_API_KEY)')
    .option('--model <preset>', `reference model: ${Object.keys(MODEL_PRESETS).join(', ')}`, 'tiny')
    .option('--seed <n>', 'seed of every new model’s initial weights (unless lora_config.seed is given)', '0')
    .option(
      '--weights-dir <dir>',
      'where checkpoints live (tinker:// paths resolve under it)',
      'runs/engine-weights',
    )
    .option(
      '--threads <n>',
      'worker threads per model (default: 2 when the machine has them); 1 computes on the server’s own thread, which then answers nothing until each operation ends',
    )
    .option('--long-poll-seconds <s>', 'how long retrieve_future waits before answering 408', '30')
    .option(
      '--compat <server>',
      'tinker; or skyrl: answer as SkyRL tx does where it differs (no tokenizer_id or context, 409 on a repeated checkpoint name, grad_clip_norm ignored), to try clients against it',
      'tinker',
    )
    .action(async (flags: ServeFlags) => {
      const options = serveOptions(flags);
      if (!LOOPBACK.has(options.host!) && !options.apiKey) {
        process.stderr.write(
          `sandgym engine: warning: listening on ${options.host} without --api-key; anyone who can reach it can train and read its models\n`,
        );
      }
      const server = await EngineServer.start({
        ...options,
        onError: (message) => process.stderr.write(`${message}\n`),
      });
      process.stdout.write(
        `sandgym engine: serving ${server.service.modelName} at ${server.url} (Tinker API under /api/v1, ` +
          `${options.apiKey ? 'API key required' : 'no API key'}); checkpoints in ${options.weightsDir}\n` +
          `use it with TINKER_BASE_URL=${server.url}\nstop with Ctrl-C\n`,
      );
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await server.close();
      process.stdout.write('sandgym engine: stopped\n');
    });
}
