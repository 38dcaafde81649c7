import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { EngineServer, type EngineServerOptions } from '../server/index.ts';
import type { TinkerEngineOptions } from './tinker-engine-options.ts';

/** Fast retries, so tests of faults take milliseconds. */
export const FAST_RETRY = { maxRetries: 2, initialDelayMs: 20, maxDelayMs: 100 };

/**
 * `sandgym engine serve` in this process on a free loopback port, one engine thread per model, with
 * its weights dir in a temporary directory; both go away after the test.
 */
export async function startServer(
  t: TestContext,
  options: Partial<EngineServerOptions> = {},
): Promise<{ server: EngineServer; dir: string; client: Pick<TinkerEngineOptions, 'baseUrl' | 'retry'> }> {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-tinker-'));
  const server = await EngineServer.start({
    port: 0,
    threads: 1,
    weightsDir: join(dir, 'weights'),
    ...options,
  });
  t.after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, dir, client: { baseUrl: server.url, retry: FAST_RETRY } };
}

/** A contract fixture (fixtures/README.md says where each comes from). */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are free-form JSON, read by path in tests
export function fixture(name: string): any {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'));
}
