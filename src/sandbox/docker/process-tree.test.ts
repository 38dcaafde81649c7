import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EXEC_MARKER_ENV,
  killTreeArgv,
  newExecMarker,
  signalName,
  signalOfExitCode,
} from './process-tree.ts';

/** Pids of host processes whose command line is `sleep <seconds>`, for one of `seconds`. */
async function sleepers(seconds: string[]): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const [cmd, arg] = cmdline.split('\0');
    if (cmd?.endsWith('sleep') && arg !== undefined && seconds.includes(arg)) found.push(Number(name));
  }
  return found;
}

function run(argv: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(argv[0]!, argv.slice(1), { timeout: 10_000 }, (e) => (e ? reject(e) : resolve())),
  );
}

// The helper runs inside containers, but it is plain sh over /proc: the host's shell runs it just as well.
describe('the kill-tree helper (run by the host shell)', { skip: process.platform !== 'linux' }, () => {
  it('kills every process of a marked command: children, setsid, re-parented, env-cleared', async () => {
    const marker = newExecMarker();
    const tag = String(900_000 + Math.floor(Math.random() * 90_000));
    const seconds = ['1', '2', '3', '4', '5'].map((d) => tag + d);
    const tree = spawn(
      '/bin/sh',
      [
        '-c',
        `sleep ${seconds[0]} & setsid sleep ${seconds[1]} & (sleep ${seconds[2]} &); ` +
          `env -i /bin/sleep ${seconds[3]} & sleep ${seconds[4]}`,
      ],
      { env: { ...process.env, [EXEC_MARKER_ENV]: marker }, stdio: 'ignore', detached: true },
    );
    const bystander = spawn('sleep', [`${tag}9`], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 50 && (await sleepers(seconds)).length < 5; i++) await sleep(100);
      assert.equal((await sleepers(seconds)).length, 5, 'all five sleeps started');
      await run(killTreeArgv(marker));
      for (let i = 0; i < 50 && (await sleepers(seconds)).length > 0; i++) await sleep(100);
      assert.deepEqual(await sleepers(seconds), [], 'no process of the tree survived');
      assert.equal((await sleepers([`${tag}9`])).length, 1, 'an unmarked process is left alone');
    } finally {
      tree.kill('SIGKILL');
      bystander.kill('SIGKILL');
      for (const pid of await sleepers(seconds)) process.kill(pid, 'SIGKILL');
    }
  });

  it('delivers a catchable signal (stop, signal, continue)', async () => {
    const marker = newExecMarker();
    const child = spawn(
      '/bin/sh',
      ['-c', 'trap "echo got-term; exit 7" TERM; while :; do sleep 0.05; done'],
      {
        env: { ...process.env, [EXEC_MARKER_ENV]: marker },
      },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    // 'close', not 'exit': only then has the child's output been read.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await sleep(200);
    await run(killTreeArgv(marker, 'SIGTERM'));
    assert.equal(await exited, 7);
    assert.match(out, /got-term/);
  });
});

describe('signal names', () => {
  it('maps SIGTERM to TERM and refuses unknown names', () => {
    assert.equal(signalName('SIGTERM'), 'TERM');
    assert.throws(() => signalName('SIGNOPE' as NodeJS.Signals), /unknown signal "SIGNOPE"/);
  });

  it('reads 128+N exit codes as signals', () => {
    assert.equal(signalOfExitCode(137), 'SIGKILL');
    assert.equal(signalOfExitCode(143), 'SIGTERM');
    assert.equal(signalOfExitCode(1), null);
  });
});
