import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ForkServer, type HostChild } from './fork-server.ts';
import { prepareHelper } from './helper-binary.ts';

const home = await mkdtemp(join(tmpdir(), 'sg-forkserver-'));
const helper = process.platform === 'linux' ? await prepareHelper(home) : undefined;

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

async function run(server: ForkServer, argv: string[], input?: string): Promise<Outcome> {
  const child = await server.spawn(argv[0]!, argv.slice(1), {
    env: { PATH: '/usr/bin:/bin', GREETING: 'hello' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  return collect(child, input);
}

function collect(child: HostChild, input?: string): Promise<Outcome> {
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (b: Buffer) => (out.stdout += b));
  child.stderr!.on('data', (b: Buffer) => (out.stderr += b));
  child.stdin!.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, ...out }));
  });
}

describe('fork server', { skip: helper ? false : 'no C compiler for sandgym-helper' }, () => {
  let server: ForkServer;
  before(() => {
    server = new ForkServer(helper!);
  });
  after(async () => {
    server.close();
    await rm(home, { recursive: true, force: true });
  });

  it('runs a program with exactly the given environment, stdin, stdout, stderr and exit code', async () => {
    const r = await run(
      server,
      ['/bin/sh', '-c', 'echo "$GREETING $HOME"; cat; echo oops >&2; exit 3'],
      'in\n',
    );
    assert.deepEqual(r, { code: 3, signal: null, stdout: 'hello \nin\n', stderr: 'oops\n' });
  });

  it('reports death by a signal, and a program that cannot be run as exit 127 with the reason', async () => {
    assert.equal((await run(server, ['/bin/sh', '-c', 'kill -9 $$'])).signal, 'SIGKILL');
    const missing = await run(server, ['/no/such/program']);
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /cannot run \/no\/such\/program: No such file/);
  });

  it('gives a child only its own stdio: no pipe of another child leaks in', async () => {
    const holder = await server.spawn('/bin/sleep', ['5'], { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
    const r = await run(server, ['/bin/sh', '-c', 'ls /proc/self/fd']);
    holder.kill('SIGKILL');
    // 0, 1, 2, and the fd ls opened to list the directory.
    assert.deepEqual(r.stdout.trim().split('\n'), ['0', '1', '2', '3']);
  });

  it('keeps the output of 200 children at once apart, each in a session of its own', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        run(server, ['/bin/sh', '-c', `echo ${i} $(($$ == $(ps -o sid= $$)))`]),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.stdout),
      results.map((_, i) => `${i} 1\n`),
    );
  });

  it('passes a large output through whole', async () => {
    const r = await run(server, ['/bin/sh', '-c', 'head -c 3000000 /dev/zero | tr "\\0" x']);
    assert.equal(r.stdout.length, 3_000_000);
  });

  it('refuses a request it could not pass on whole (a NUL byte, too many fields) and keeps serving', async () => {
    const io = { env: {}, stdio: ['ignore'] as const };
    await assert.rejects(server.spawn('/bin/echo', ['a\0b'], io), /NUL/);
    await assert.rejects(server.spawn('/bin/true', Array(70_000).fill('x'), io), /too many/);
    assert.equal((await run(server, ['/bin/echo', 'still here'])).stdout, 'still here\n');
  });

  it('fails the children it was running, and every later spawn, when it dies', async () => {
    const doomed = new ForkServer(helper!);
    const child = await doomed.spawn('/bin/sleep', ['5'], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    const lost = new Promise<Error>((resolve) => child.once('error', resolve));
    process.kill(doomed.pid!, 'SIGKILL');
    assert.match((await lost).message, /spawner is gone/);
    await assert.rejects(doomed.spawn('/bin/true', [], { env: {}, stdio: ['ignore'] }), /spawner is gone/);
    assert.equal(doomed.alive, false);
    process.kill(child.pid!, 'SIGKILL');
  });
});
