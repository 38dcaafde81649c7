import { HttpError } from './http-error.ts';

/**
 * One model's work, run one job at a time, with training requests in `seq_id` order (1, 2, …)
 * whatever order they arrive in: a request waits until every lower seq_id has run or was rejected. A
 * seq_id that never comes (its POST was lost) holds the queue for at most `gapTimeoutMs`; then the
 * queue moves on, and the straggler, if it arrives, is refused. Jobs without a seq_id (sampling) run in
 * arrival order, between the released ones.
 */
export class SequencedQueue {
  private expected = 1;
  private readonly waiting = new Map<number, () => void>();
  private readonly consumed = new Set<number>();
  private tail: Promise<unknown> = Promise.resolve();
  private gapTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly gapTimeoutMs: number,
  ) {}

  /**
   * Runs `job` in its turn; with a seq_id, only after all lower ones. A seq_id already taken is
   * refused at once (409), before anything is queued.
   */
  run<T>(seqId: number | undefined, job: () => Promise<T>): Promise<T> {
    if (seqId === undefined) return this.enqueue(job);
    this.checkFresh(seqId);
    return new Promise<T>((resolve, reject) => {
      // Enqueued when released, so jobs start in release (seq_id) order.
      this.waiting.set(seqId, () => this.enqueue(job).then(resolve, reject));
      this.releaseReady();
    });
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** A seq_id whose request was rejected before it could run: its turn passes. */
  skip(seqId: number): void {
    if (seqId < this.expected || this.waiting.has(seqId)) return;
    this.consumed.add(seqId);
    this.releaseReady();
  }

  /** Resolves once every job queued so far has run. */
  drained(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private checkFresh(seqId: number): void {
    if (seqId < this.expected || this.waiting.has(seqId) || this.consumed.has(seqId)) {
      throw new HttpError(
        409,
        `${this.name}: seq_id ${seqId} was already used (requests up to ${this.expected - 1} have been taken in turn); number each request of a model once, increasing from 1`,
      );
    }
  }

  private releaseReady(): void {
    clearTimeout(this.gapTimer);
    for (;;) {
      const release = this.waiting.get(this.expected);
      if (release) {
        this.waiting.delete(this.expected);
        release();
      } else if (!this.consumed.delete(this.expected)) break;
      this.expected++;
    }
    if (this.waiting.size > 0) {
      this.gapTimer = setTimeout(() => {
        this.expected = Math.min(...this.waiting.keys());
        for (const s of this.consumed) if (s < this.expected) this.consumed.delete(s);
        this.releaseReady();
      }, this.gapTimeoutMs);
      this.gapTimer.unref();
    }
  }
}
