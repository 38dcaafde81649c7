import { ENVELOPE_END_STREAM, EnvelopeDecoder, parseEnvelopeJson } from './connect-envelope.ts';
import { describeResponse, type ResponseBody, StreamIdleError } from './http-transport.ts';
import { parseRpcErrorJson, RpcError } from './rpc-error.ts';

/** Unread messages at which the response is paused, so that a slow reader holds the server back. */
const MAX_QUEUED = 16;

type Waiter = { resolve: (r: IteratorResult<unknown>) => void; reject: (e: unknown) => void };

/**
 * The messages of one server-streaming Connect call, decoded as the response's chunks arrive. It is one
 * iterator fed by the response's 'data' events, not a stack of async generators, because every
 * command of the e2b provider runs through it and each layer cost the client measurable CPU.
 * The end-of-stream message ends the iteration, or throws the call's error. A read fails with a
 * StreamIdleError when it waits more than `idleMs` for the network; keepalives count as messages. The
 * clock does not run while messages wait unread, so a slow reader never trips it.
 */
export class ConnectStream implements AsyncIterableIterator<unknown> {
  private readonly queue: unknown[] = [];
  private readonly decoder: EnvelopeDecoder;
  private readonly idleTimer: NodeJS.Timeout;
  private waiter: Waiter | undefined;
  /** Set by the end-of-stream message (the iteration is over once the queue is read) or by return(). */
  private ended = false;
  private failure: unknown;

  constructor(
    private readonly res: ResponseBody,
    idleMs: number,
    maxMessageBytes: number,
  ) {
    this.decoder = new EnvelopeDecoder(maxMessageBytes);
    this.idleTimer = setTimeout(() => {
      if (this.waiter) this.fail(new StreamIdleError(describeResponse(res), idleMs));
    }, idleMs);
    res.on('data', (chunk: Buffer) => this.onChunk(chunk));
    res.on('end', () => {
      if (this.ended) return;
      try {
        this.decoder.finish();
        this.fail(new RpcError('unavailable', 'the stream was cut before its end-of-stream message'));
      } catch (e) {
        this.fail(e);
      }
    });
    res.on('error', (e) => this.fail(e));
    res.on('close', () => {
      if (!this.ended)
        this.fail(new RpcError('unavailable', 'the connection closed in the middle of the stream'));
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.queue.length > 0) {
      const value = this.queue.shift();
      if (this.res.isPaused() && this.queue.length < MAX_QUEUED / 2) this.res.resume();
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    this.idleTimer.refresh();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Stops reading (a `break` out of `for await`, or an abort); a read waiting at that moment ends too. */
  return(): Promise<IteratorResult<unknown>> {
    this.ended = true;
    this.queue.length = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    const done = this.finish();
    waiter?.resolve(done);
    return Promise.resolve(done);
  }

  /** Drops the call unless its response is complete (a complete one leaves its socket to keep-alive). */
  private finish(): IteratorResult<unknown> {
    clearTimeout(this.idleTimer);
    if (!this.res.complete) this.res.destroy();
    return { value: undefined, done: true };
  }

  private onChunk(chunk: Buffer): void {
    if (this.ended || this.failure !== undefined) return;
    try {
      for (const envelope of this.decoder.push(chunk)) {
        const json = parseEnvelopeJson(envelope);
        if ((envelope.flags & ENVELOPE_END_STREAM) !== 0) {
          this.onEndOfStream(json);
          return;
        }
        this.deliver(json);
      }
    } catch (e) {
      this.fail(e);
    }
    if (this.queue.length >= MAX_QUEUED) this.res.pause();
  }

  private onEndOfStream(json: unknown): void {
    const error = parseRpcErrorJson((json as { error?: unknown } | null)?.error);
    if (error) {
      this.fail(error);
      return;
    }
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.res.resume();
    // The response's own end is parsed after this chunk's handlers ran; by the next turn it is in.
    setImmediate(() => this.finish());
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
  }

  private deliver(message: unknown): void {
    const waiter = this.waiter;
    if (!waiter) {
      this.queue.push(message);
      return;
    }
    this.waiter = undefined;
    waiter.resolve({ value: message, done: false });
  }

  /** The first failure wins; it reaches the reader once the messages before it are read. */
  private fail(e: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = e;
    clearTimeout(this.idleTimer);
    this.res.destroy();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(e);
  }
}
