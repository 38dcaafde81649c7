import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Docker from 'dockerode';
import { isSandboxError } from '../../errors.ts';
import { DockerApi, describeEndpoint, engineMessage, httpStatus } from './docker-api.ts';

const api = new DockerApi(
  new Docker({ socketPath: '/nonexistent/docker.sock' }),
  'unix:///nonexistent/docker.sock',
);
const never = () => new Promise<never>(() => {});

describe('DockerApi.call', () => {
  it('gives up at the deadline even when the call ignores its signal, naming the call and the remedy', async () => {
    await assert.rejects(
      api.call('image inspect', never, { timeoutMs: 30, sandboxId: 'abc' }),
      (e: unknown) =>
        isSandboxError(e) &&
        e.isRetryable &&
        /^sandbox abc: the Docker engine at unix:\/\/\/nonexistent\/docker.sock did not answer "image inspect" within 30 ms/.test(
          e.message,
        ),
    );
  });

  it("aborts the call's signal at the deadline", async () => {
    let seen: AbortSignal | undefined;
    await assert.rejects(
      api.call(
        'x',
        (signal) => {
          seen = signal;
          return never();
        },
        { timeoutMs: 20 },
      ),
    );
    assert.equal(seen?.aborted, true);
  });

  it("rethrows the caller's abort reason as is", async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    setTimeout(() => controller.abort(reason), 10);
    await assert.rejects(api.call('x', never, { signal: controller.signal }), (e: unknown) => e === reason);
  });

  it('turns a missing socket into "cannot reach the Docker engine" with what to run', async () => {
    await assert.rejects(
      api.call('info', (abortSignal) =>
        (api.docker as never as { info(o: object): Promise<unknown> }).info({ abortSignal }),
      ),
      (e: unknown) =>
        isSandboxError(e) &&
        /cannot reach the Docker engine .*ENOENT.*bash scripts\/setup.sh/.test(e.message),
    );
  });

  it('passes engine errors through with their status', async () => {
    const engineError = Object.assign(new Error('(HTTP code 404) no such image - No such image: x:latest '), {
      statusCode: 404,
      json: { message: 'No such image: x:latest' },
    });
    const e = await api.call('x', () => Promise.reject(engineError)).catch((err: unknown) => err);
    assert.equal(e, engineError);
    assert.equal(httpStatus(e), 404);
    assert.equal(engineMessage(e), 'No such image: x:latest');
    const streamError = Object.assign(
      new Error('(HTTP code 500) server error - Get "https://r/v2/": no such host '),
      {
        statusCode: 500,
        json: null,
      },
    );
    assert.equal(engineMessage(streamError), 'Get "https://r/v2/": no such host');
  });

  it('describes where it connects', () => {
    assert.equal(describeEndpoint(api.docker), 'unix:///nonexistent/docker.sock');
    assert.equal(describeEndpoint(new Docker({ host: '10.0.0.2', port: 2375 })), 'tcp://10.0.0.2:2375');
  });
});
