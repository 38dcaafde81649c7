import type { SandboxProvider } from '../../sandbox/index.ts';
import { createLocalProvider } from '../../sandbox/local/index.ts';
import { KeyStore } from '../api-keys.ts';
import { SandboxServer } from '../sandbox-server.ts';
import type { SandboxServerOptions } from '../server-options.ts';

/** `sandgym serve` on a free loopback port over a local provider of its own, for tests and benchmarks. */
export interface TestServer {
  url: string;
  server: SandboxServer;
  provider: SandboxProvider;
  close(): Promise<void>;
}

export async function startTestServer(
  o: { keys: string[] } & Omit<SandboxServerOptions, 'provider' | 'keys'>,
): Promise<TestServer> {
  const provider = await createLocalProvider();
  const { keys, ...options } = o;
  const server = await SandboxServer.start({ ...options, provider, keys: KeyStore.of(keys) });
  return {
    url: server.url,
    server,
    provider,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}
