import { constants } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { closedStdin } from '../closed-stdin.ts';
import type { SandboxProcess } from '../types.ts';
import type { EnvdClient } from './envd-client.ts';
import { markedProcess, newExecId } from './process-marker.ts';
import { type EndEvent, shellExitCode } from './process-messages.ts';
import { RemoteProcess } from './remote-process.ts';

const OUTPUT_BUFFER_BYTES = 1024 * 1024;

export interface RemoteSpawnParams {
  envd: EnvdClient;
  argv: readonly string[];
  cwd: string | undefined;
  env: Record<string, string> | undefined;
  /** False: envd gives the command no stdin (end-of-file at once). */
  stdin: boolean;
  /** Signals every process of the command's tree (see process-marker.ts). */
  signalTree: (execId: string, signal: NodeJS.Signals) => Promise<void>;
  /** Called when the process has ended, so the sandbox stops tracking it. */
  onEnd: () => void;
}

/**
 * A long-lived command through envd: output streamed (the stream is read only as fast as the caller
 * reads, so a slow reader holds the command back instead of filling memory), stdin as SendInput calls,
 * signals to the whole tree. If the stream breaks the command is killed and reported killed: `exited`
 * never rejects.
 */
export async function spawnRemote(p: RemoteSpawnParams): Promise<SandboxProcess & { abort(): void }> {
  const execId = newExecId();
  const proc = await RemoteProcess.start(p.envd, markedProcess(execId, p), { stdin: p.stdin });
  // As much as a pipe's worth and more buffers before a reader that does not read holds the command.
  const stdout = new PassThrough({ highWaterMark: OUTPUT_BUFFER_BYTES });
  const stderr = new PassThrough({ highWaterMark: OUTPUT_BUFFER_BYTES });
  const stdin = !p.stdin
    ? closedStdin()
    : new Writable({
        write(chunk: Buffer, _encoding, done) {
          proc.sendInput(chunk).then(() => done(), done);
        },
        final(done) {
          proc.closeStdin().then(() => done(), done);
        },
      });
  // A write after the process died fails; its exit is reported by `exited`, not by a crash.
  stdin.on('error', () => {});
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    const direct = signal === 'SIGKILL' || signal === 'SIGTERM' ? proc.signal(signal) : Promise.resolve();
    void direct.catch(() => {}).then(() => p.signalTree(execId, signal).catch(() => {}));
  };
  const exited = pump(proc, stdout, stderr).then((end) => {
    p.onEnd();
    if (end)
      return { exitCode: shellExitCode(end), signal: end.exited ? null : signalOf(shellExitCode(end)) };
    kill('SIGKILL');
    return { exitCode: 128 + constants.signals.SIGKILL, signal: 'SIGKILL' as const };
  });
  return { stdout, stderr, stdin, kill, exited, abort: () => proc.abort() };
}

/** Copies the event stream into stdout/stderr with backpressure; the end event, or undefined if cut. */
async function pump(
  proc: RemoteProcess,
  stdout: PassThrough,
  stderr: PassThrough,
): Promise<EndEvent | undefined> {
  let end: EndEvent | undefined;
  try {
    for await (const event of proc.output()) {
      if (event.type === 'end') {
        end = event;
        continue;
      }
      const target = event.stream === 'stderr' ? stderr : stdout;
      if (!target.write(event.bytes)) await new Promise((resolve) => target.once('drain', resolve));
    }
  } catch {}
  stdout.end();
  stderr.end();
  return end;
}

function signalOf(exitCode: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, n]) => n === exitCode - 128);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}
