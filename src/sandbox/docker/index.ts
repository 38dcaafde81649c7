import Docker from 'dockerode';
import type { ProviderOptions } from '../index.ts';
import { currentRunId } from '../owner.ts';
import { diskQuotaSupport } from './disk-quota.ts';
import { DockerApi, describeEndpoint } from './docker-api.ts';
import { parseDockerOptions } from './docker-options.ts';
import { DockerProvider } from './docker-provider.ts';

export type { DiskQuotaSupport } from './disk-quota.ts';
export type { DockerOptions } from './docker-options.ts';
export { DEFAULT_TTL_MS, DockerProvider } from './docker-provider.ts';
export { DockerSandbox } from './docker-sandbox.ts';
export type { PullProgress } from './pull-image.ts';

/**
 * The docker provider: sandboxes as containers of a Docker engine, through its HTTP API (dockerode).
 * Asks the engine for its storage driver and CPU count first, so that an engine that does not answer
 * fails here, with what to do, rather than at the first sandbox.
 */
export async function createDockerProvider(options: ProviderOptions = {}): Promise<DockerProvider> {
  const settings = parseDockerOptions(options.options);
  const docker = new Docker({
    ...(settings.socketPath && { socketPath: settings.socketPath }),
    ...(settings.host && { host: settings.host, ...(settings.port && { port: settings.port }) }),
  });
  const api = new DockerApi(docker, describeEndpoint(docker));
  // Ping answers at once even when the engine is busy; info can wait behind slow storage work.
  await api.call('ping', (abortSignal) => (docker as WithSignal).ping({ abortSignal }), {
    timeoutMs: settings.connectTimeoutMs,
  });
  const info = (await api.call('info', (abortSignal) => (docker as WithSignal).info({ abortSignal }))) as {
    Driver?: string;
    DriverStatus?: [string, string][];
    NCPU?: number;
  };
  return new DockerProvider({
    api,
    options: settings,
    runId: options.runId ?? currentRunId(),
    storageDriver: info.Driver ?? 'unknown',
    diskQuota: diskQuotaSupport(info),
    hostCpus: info.NCPU,
  });
}

/** dockerode's typings omit the options of `ping` and `info`; it does pass their abortSignal on. */
type WithSignal = {
  ping(options: { abortSignal: AbortSignal }): Promise<unknown>;
  info(options: { abortSignal: AbortSignal }): Promise<unknown>;
};
