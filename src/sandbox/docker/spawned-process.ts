import { PassThrough, type Readable, Writable } from 'node:stream';
import { closedStdin } from '../closed-stdin.ts';
import type { SandboxProcess } from '../types.ts';
import {
  type ExecTarget,
  execExitCode,
  killProcessTree,
  killUntilEnded,
  openExec,
  socketClosed,
} from './exec-session.ts';
import { createExecStreamParser } from './parse-exec-stream.ts';
import { newExecMarker, signalName, signalOfExitCode } from './process-tree.ts';

/**
 * Starts a long-lived command attached to stdout, stderr and (unless `stdin` is false) stdin. Output is
 * not capped (the caller reads the streams); a slow reader pauses the connection instead of filling
 * memory.
 */
export async function spawnProcess(
  target: ExecTarget,
  request: { argv: string[]; env: string[]; cwd?: string | undefined; stdin: boolean },
): Promise<SandboxProcess> {
  const marker = newExecMarker();
  const { exec, socket } = await openExec(target, { ...request, marker });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const outputs = { stdout, stderr };

  const parse = createExecStreamParser((stream, payload) => {
    if (!outputs[stream].write(payload)) {
      socket.pause();
      outputs[stream].once('drain', () => socket.resume());
    }
  });
  socket.on('data', (chunk: Buffer) => {
    try {
      parse(chunk);
    } catch (e) {
      socket.destroy(e as Error);
    }
  });

  let ended = false;
  const stdin = !request.stdin
    ? closedStdin()
    : new Writable({
        write(chunk: Buffer, _encoding, callback) {
          // Writing to a command that has exited is not an error worth crashing a caller without a listener.
          if (ended) return callback();
          socket.write(chunk, () => callback());
        },
        final(callback) {
          if (!ended) socket.end();
          callback();
        },
      });

  let sentSignal: NodeJS.Signals | undefined;
  let killing = false;
  const exited = socketClosed(socket).then(async () => {
    ended = true;
    stdout.end();
    stderr.end();
    const exitCode = await execExitCode(target, exec).catch(() => undefined);
    // Unknown when the sandbox was closed under it: the container's kill took the process with it.
    if (exitCode === undefined) return { exitCode: 137, signal: 'SIGKILL' as NodeJS.Signals };
    const signal = signalOfExitCode(exitCode);
    return {
      exitCode,
      signal: signal && (sentSignal === undefined || signal === sentSignal) ? signal : null,
    };
  });

  return {
    stdout: stdout as Readable,
    stderr: stderr as Readable,
    stdin,
    exited,
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      signalName(signal);
      sentSignal = signal;
      if (signal !== 'SIGKILL') void killProcessTree(target, marker, signal);
      else if (!killing) {
        killing = true;
        void killUntilEnded(target, marker, exited);
      }
    },
  };
}
