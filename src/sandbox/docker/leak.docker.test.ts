import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { LABELS } from '../types.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider } from './index.ts';

const environment = await dockerTestEnvironment();
const holder = fileURLToPath(new URL('./fixtures/hold-sandboxes.ts', import.meta.url));

describe('nothing leaks (docker)', { skip: environment.skip, timeout: 30 * 60_000 }, () => {
  it('gc removes every container and fork image of a process killed with SIGKILL', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', holder, environment.image, '20'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const made = await new Promise<{ runId: string; ids: string[] }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.on('exit', (code) =>
        reject(new Error(`the holder exited (${code}) before making its sandboxes`)),
      );
    });
    assert.equal(made.ids.length, 21, '20 sandboxes and a fork');
    const docker = new Docker();
    const byRun = { label: [`${LABELS.run}=${made.runId}`] };
    assert.equal((await docker.listContainers({ all: true, filters: byRun })).length, 21);
    assert.equal((await docker.listImages({ filters: byRun })).length, 1, 'the fork image');

    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const provider = await createDockerProvider();
    try {
      const report = await provider.gc();
      for (const id of made.ids) assert.ok(report.removed.includes(id), `gc removed ${id}`);
      assert.deepEqual(await docker.listContainers({ all: true, filters: byRun }), [], 'no container left');
      assert.deepEqual(await docker.listImages({ filters: byRun }), [], 'no fork image left');
    } finally {
      await provider.close();
    }
  });
});
