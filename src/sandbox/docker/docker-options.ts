import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../errors.ts';
import type { PullProgress } from './pull-image.ts';

const fn = <T>() => z.custom<T>((v) => typeof v === 'function', { message: 'must be a function' });

/** The docker provider's own options (`ProviderOptions.options`). Unknown keys are refused. */
const dockerOptionsSchema = z
  .object({
    /** Unix socket of the engine. Default: docker-modem's choice ($DOCKER_HOST, else /var/run/docker.sock). */
    socketPath: z.string().min(1).optional(),
    /** TCP host of the engine (with `port`), instead of a socket. */
    host: z.string().min(1).optional(),
    port: z.number().int().positive().optional(),
    /** The docker CLI's config file, for registry credentials. Default: $DOCKER_CONFIG/config.json or ~/.docker/config.json. */
    dockerConfigPath: z.string().min(1).optional(),
    /** Called for each line of pull progress of an absent image. */
    onPullProgress: fn<(progress: PullProgress) => void>().optional(),
    /** Called with warnings (e.g. the disk limit cannot be enforced); default `process.emitWarning`. */
    onWarning: fn<(message: string) => void>().optional(),
    /** Deadline of a whole image pull. Default 30 min. */
    pullTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(30 * 60_000),
    /** A pull reporting no progress for this long is stuck. Default 2 min. */
    pullIdleMs: z
      .number()
      .int()
      .positive()
      .default(2 * 60_000),
    /** Deadline of the engine's first answer (a ping) at start-up. Default 10 s. */
    connectTimeoutMs: z.number().int().positive().default(10_000),
  })
  .strict();

export type DockerOptions = z.infer<typeof dockerOptionsSchema> & { dockerConfigPath: string };

export function parseDockerOptions(raw: Record<string, unknown> | undefined): DockerOptions {
  const parsed = dockerOptionsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`)
      .join('; ');
    const valid = Object.keys(dockerOptionsSchema.shape).join(', ');
    throw new ConfigError(`invalid docker provider options: ${issues}; valid options: ${valid}`);
  }
  if (parsed.data.socketPath && parsed.data.host) {
    throw new ConfigError('docker provider options: give socketPath or host, not both');
  }
  return {
    ...parsed.data,
    dockerConfigPath:
      parsed.data.dockerConfigPath ??
      join(process.env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json'),
  };
}
