/** An answer the server gave, to give again. */
export interface CachedAnswer {
  status: number;
  body: unknown;
}

/**
 * Answers by `X-Idempotency-Key`: a client retrying a POST (same key) whose first answer it never got
 * receives that answer again instead of having the work done twice. A retry that arrives while the
 * first attempt is still being handled waits for its answer. Answers of 5xx are not kept.
 */
export class IdempotencyCache {
  private readonly answers = new Map<string, { expiresAtMs: number; answer: Promise<CachedAnswer> }>();

  constructor(private readonly ttlMs: number) {}

  /** The answer for `key`, computed by `answer()` on first sight. */
  getOrAdd(key: string, answer: () => Promise<CachedAnswer>): Promise<CachedAnswer> {
    const now = Date.now();
    for (const [k, v] of this.answers) {
      if (v.expiresAtMs > now) break;
      this.answers.delete(k);
    }
    const cached = this.answers.get(key);
    if (cached) return cached.answer;
    const fresh = answer();
    this.answers.set(key, { expiresAtMs: now + this.ttlMs, answer: fresh });
    // A server-side failure is not the answer to keep: the retry deserves a fresh attempt.
    fresh.then((a) => {
      if (a.status >= 500) this.answers.delete(key);
    });
    return fresh;
  }
}
