import type { ConnectStream } from './connect-stream.ts';
import type { EnvdClient } from './envd-client.ts';
import {
  type ProcessConfig,
  type ProcessEvent,
  parseProcessEvent,
  type StartRequest,
} from './process-messages.ts';
import { RpcError } from './rpc-error.ts';

/**
 * One process started through envd's `process.Process/Start`: its event stream (read under the read
 * deadline), and the unary calls that feed its stdin and signal it. `abort()` drops the stream, which
 * envd takes as the client going away, not as a kill.
 */
export class RemoteProcess {
  private ended = false;

  private constructor(
    private readonly envd: EnvdClient,
    readonly pid: number,
    private readonly events: ConnectStream,
  ) {}

  /** `signal` aborts the whole call: the start, and the stream after it. */
  static async start(
    envd: EnvdClient,
    process: ProcessConfig,
    o: { stdin: boolean; deadlineMs?: number; signal?: AbortSignal | undefined },
  ): Promise<RemoteProcess> {
    const request: StartRequest = { process, stdin: o.stdin };
    const events = await envd.stream('process.Process/Start', request, {
      ...(o.deadlineMs !== undefined && { deadlineMs: o.deadlineMs }),
      signal: o.signal,
    });
    try {
      const first = await events.next();
      if (first.done) throw new RpcError('unavailable', 'the process stream ended before its start event');
      const event = parseProcessEvent(first.value);
      if (event.type !== 'start') throw new RpcError('internal', `expected a start event, got ${event.type}`);
      return new RemoteProcess(envd, event.pid, events);
    } catch (e) {
      void events.return();
      throw e;
    }
  }

  /** Data and end events, in order; keepalives only reset the read deadline. */
  async *output(): AsyncGenerator<Exclude<ProcessEvent, { type: 'keepalive' | 'start' }>> {
    try {
      for await (const message of this.events) {
        const event = parseProcessEvent(message);
        if (event.type === 'data' || event.type === 'end') yield event;
      }
    } finally {
      this.ended = true;
    }
  }

  sendInput(bytes: Uint8Array): Promise<unknown> {
    return this.envd.unary('process.Process/SendInput', {
      process: { pid: this.pid },
      input: { stdin: Buffer.from(bytes).toString('base64') },
    });
  }

  closeStdin(): Promise<unknown> {
    return this.envd.unary('process.Process/CloseStdin', { process: { pid: this.pid } });
  }

  signal(signal: 'SIGKILL' | 'SIGTERM'): Promise<unknown> {
    return this.envd.unary('process.Process/SendSignal', {
      process: { pid: this.pid },
      signal: signal === 'SIGKILL' ? 'SIGNAL_SIGKILL' : 'SIGNAL_SIGTERM',
    });
  }

  /** Drops the event stream (and its connection), unless it is already over. */
  abort(): void {
    if (!this.ended) void this.events.return();
  }
}
