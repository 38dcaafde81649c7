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

/**
 * For tests and benches: over `engine serve`'s Tinker API at `serverUrl`, a session makes a
 * `reference-tiny` model and saves its weights for sampling under `name`; returns the tinker:// path that
 * the OpenAI endpoints take as their model.
 */
export async function tinySamplerWeights(serverUrl: string, name: string): Promise<string> {
  const post = async (endpoint: string, body: unknown) =>
    (await (
      await fetch(`${serverUrl}/api/v1/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, unknown> & { request_id: string };
  const retrieve = async (id: string) => {
    for (;;) {
      const answer = await post('retrieve_future', { request_id: id });
      if (answer.type !== 'try_again') return answer;
    }
  };
  const session = await post('create_session', { tags: [], user_metadata: {}, sdk_version: name });
  const created = await post('create_model', {
    session_id: session.session_id,
    base_model: 'reference-tiny',
  });
  await retrieve(created.request_id);
  const saved = await retrieve(
    (await post('save_weights_for_sampler', { model_id: created.model_id, seq_id: 1, path: name }))
      .request_id,
  );
  return saved.path as string;
}
