import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { endEventOf, processEventJson, RpcError } from '../sandbox/e2b/index.ts';
import { ServerStream } from './connect-server.ts';
import type { ServedProcess } from './process-table.ts';

/**
 * After the process exits, how long its output pipes may stay open (held by a background child) before
 * the end is reported without them, as the providers' exec does. Time paused for a slow client does not
 * count.
 */
const PIPE_GRACE_MS = 100;

/**
 * Streams one started process as envd does: the start event, data events as output arrives (paused while
 * the client's buffer is full), keepalives when nothing else was sent for `keepaliveMs`, the end event,
 * then the end-of-stream message. At the call's deadline the process tree is killed and the stream ends
 * in `deadline_exceeded`. A client that goes away leaves the process running; its output is dropped.
 */
export async function streamProcess(
  served: ServedProcess,
  res: ServerResponse,
  o: { deadlineMs: number | undefined; keepaliveMs: number },
): Promise<void> {
  const { proc } = served;
  const stream = new ServerStream(res);
  const pipes = [proc.stdout, proc.stderr];
  stream.send(processEventJson({ type: 'start', pid: served.pid }));
  // Restarted (not recreated) by every message, so it fires only after keepaliveMs of silence.
  const keepalive = setTimeout(function beat() {
    stream.send(processEventJson({ type: 'keepalive' }));
    keepalive.refresh();
  }, o.keepaliveMs);
  let deadlineHit = false;
  const deadline =
    o.deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          deadlineHit = true;
          proc.kill('SIGKILL');
        }, o.deadlineMs);
  for (const [name, pipe] of [
    ['stdout', proc.stdout],
    ['stderr', proc.stderr],
  ] as const) {
    pipe.on('data', (bytes: Buffer) => {
      if (!stream.open) return;
      keepalive.refresh();
      const as = served.pty ? 'pty' : name;
      if (stream.send(processEventJson({ type: 'data', stream: as, bytes }))) return;
      for (const p of pipes) p.pause();
      void stream.drained().then(() => {
        for (const p of pipes) p.resume();
      });
    });
  }
  res.once('close', () => {
    for (const p of pipes) p.resume();
  });
  try {
    const exit = await proc.exited;
    await pipesSettled(pipes);
    stream.end(
      processEventJson({ type: 'end', ...endEventOf(exit) }),
      deadlineHit
        ? new RpcError(
            'deadline_exceeded',
            `the process was killed at its deadline of ${o.deadlineMs} ms (Connect-Timeout-Ms)`,
          )
        : undefined,
    );
  } finally {
    clearTimeout(keepalive);
    clearTimeout(deadline);
  }
}

/** Resolves when every pipe has ended, or has been quiet (and not paused) for PIPE_GRACE_MS. */
function pipesSettled(pipes: Readable[]): Promise<void> {
  const open = () => pipes.filter((p) => !p.readableEnded && !p.destroyed);
  if (open().length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      for (const p of pipes) {
        p.off('end', check);
        p.off('data', arm);
      }
      resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (pipes.some((p) => p.isPaused())) return arm();
        // A loaded event loop can run this timer before the poll that reads what the process wrote
        // before it exited; one turn later that output has been read (and re-armed the timer).
        const armedAt = timer;
        setImmediate(() => {
          if (timer !== armedAt) return;
          for (const p of open()) p.destroy();
          finish();
        });
      }, PIPE_GRACE_MS);
    };
    const check = () => {
      if (open().length === 0) finish();
    };
    for (const p of pipes) {
      p.on('end', check);
      p.on('data', arm);
    }
    arm();
  });
}
