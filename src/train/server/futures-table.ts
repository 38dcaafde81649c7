import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, isConfigError } from '../../errors.ts';
import { CheckpointError, isEngineInputError } from '../errors.ts';
import type { RequestFailedResponse } from '../tinker/index.ts';
import { HttpError } from './http-error.ts';

/** A future's state: pending until its work settles, then done (with a result) or failed. */
export type FutureOutcome =
  | { state: 'pending' }
  | { state: 'done'; result: unknown }
  | { state: 'failed'; failure: RequestFailedResponse };

interface Entry {
  outcome: FutureOutcome;
  settled: Promise<void>;
  /** What the request was, for messages: "forward_backward on model_ab12". */
  what: string;
}

/**
 * The server's futures: every accepted request gets an id (1, 2, …) whose outcome retrieve_future
 * reads. Outcomes are kept `resultTtlMs` after they settle, so a client whose answer got lost can ask
 * again; after that an id is "expired" (410), and an id never issued is unknown (404).
 */
export class FuturesTable {
  private readonly entries = new Map<string, Entry>();
  private nextId = 1;

  constructor(private readonly resultTtlMs: number) {}

  /** Registers `work` and returns its future's id. */
  add(what: string, work: Promise<unknown>): string {
    const id = String(this.nextId++);
    const entry: Entry = { outcome: { state: 'pending' }, what, settled: Promise.resolve() };
    entry.settled = work.then(
      (result) => {
        entry.outcome = { state: 'done', result: result ?? null };
      },
      (e: unknown) => {
        entry.outcome = { state: 'failed', failure: failure(e) };
      },
    );
    entry.settled.then(() => this.expireLater(id));
    this.entries.set(id, entry);
    return id;
  }

  /**
   * The outcome of future `id`, waiting up to `waitMs` for it to settle (a long poll): pending means
   * the wait ran out.
   */
  async wait(id: string, waitMs: number, signal?: AbortSignal): Promise<FutureOutcome> {
    const entry = this.entries.get(id);
    if (!entry) {
      const issued = /^\d+$/.test(id) && Number(id) < this.nextId;
      throw issued
        ? new HttpError(
            410,
            `future ${id} expired: its result was kept ${this.resultTtlMs} ms; send the request again`,
          )
        : new HttpError(404, `future ${id} is unknown to this server (was it restarted?)`);
    }
    if (entry.outcome.state === 'pending' && waitMs > 0) {
      const timeout = new AbortController();
      const signals = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
      await Promise.race([
        entry.settled,
        sleep(waitMs, undefined, { signal: signals }).catch(() => undefined),
      ]);
      timeout.abort();
    }
    return entry.outcome;
  }

  private expireLater(id: string): void {
    setTimeout(() => this.entries.delete(id), this.resultTtlMs).unref();
  }
}

/** A failed request as retrieve_future reports it: `user` when the request itself was wrong. */
function failure(e: unknown): RequestFailedResponse {
  const user =
    isEngineInputError(e) || isConfigError(e) || e instanceof CheckpointError || e instanceof HttpError;
  return { error: errorMessage(e), category: user ? 'user' : 'server' };
}
