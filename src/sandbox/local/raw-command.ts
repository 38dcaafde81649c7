import { Readable, type Writable } from 'node:stream';
import { type EnterParams, enterSandbox, killEntered, startFailure } from './enter-sandbox.ts';
import { exitCodeOf } from './run-exec.ts';

export interface RawResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
  /** The command wrote more than `maxStdoutBytes` and was killed; `stdout` holds the first ones. */
  overflowed: boolean;
}

export interface RawCommandParams extends Omit<EnterParams, 'stdin'> {
  stdin?: Buffer | Readable;
  /** Where stdout goes; collected into `stdout` when absent. */
  stdout?: NodeJS.WritableStream;
  timeoutMs: number;
  /** Cap on the stdout collected (when `stdout` is absent): past it the command is killed. */
  maxStdoutBytes?: number;
  /** Kills the command (a reader on the host gave up on its output). */
  signal?: AbortSignal;
}

/**
 * Runs one of sandgym's own helper commands (cat, tar, mkdir) inside the sandbox: binary stdout kept whole
 * up to a cap (what the sandbox prints is the sandbox's choice) or streamed on, a deadline that kills the
 * tree and reports exit 124.
 */
export async function runRawCommand(p: RawCommandParams): Promise<RawResult> {
  let child: Awaited<ReturnType<typeof enterSandbox>>;
  try {
    child = await enterSandbox({ ...p, stdin: p.stdin ? 'pipe' : 'ignore' });
  } catch (e) {
    p.group.release();
    throw e;
  }
  const chunks: Buffer[] = [];
  let overflowed = false;
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 16_384) stderr += b.toString();
  });
  if (p.stdout) {
    const dest = p.stdout as Writable;
    child.stdout!.pipe(dest);
    // A destination destroyed early (its reader gave up: a byte cap, a refused entry) leaves stdout
    // paused, so the command's end never closes it and this call would wait forever: drain the rest.
    dest.once('close', () => {
      child.stdout!.unpipe(dest);
      child.stdout!.resume();
    });
  } else {
    let collected = 0;
    const cap = p.maxStdoutBytes ?? Number.POSITIVE_INFINITY;
    child.stdout!.on('data', (b: Buffer) => {
      if (overflowed) return;
      if (collected + b.length > cap) {
        overflowed = true;
        chunks.push(b.subarray(0, cap - collected));
        void killEntered(child, p.group);
        return;
      }
      collected += b.length;
      chunks.push(b);
    });
  }
  if (p.stdin) {
    child.stdin!.on('error', () => {});
    if (p.stdin instanceof Readable) p.stdin.pipe(child.stdin!);
    else child.stdin!.end(p.stdin);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void killEntered(child, p.group);
  }, p.timeoutMs);
  const abort = () => void killEntered(child, p.group);
  p.signal?.addEventListener('abort', abort, { once: true });
  try {
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(startFailure(p.sandboxId, e)));
      child.once('close', (code, signal) => resolve(exitCodeOf(code, signal)));
    });
    return { exitCode: timedOut ? 124 : exitCode, stdout: Buffer.concat(chunks), stderr, overflowed };
  } finally {
    clearTimeout(timer);
    p.signal?.removeEventListener('abort', abort);
    p.group.release();
  }
}
