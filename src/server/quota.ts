/**
 * Per-key quotas of `sandgym serve`: sandboxes alive at once (creates in flight count) and creates per
 * second (a token bucket holding one second's worth, so short bursts pass).
 */
export interface QuotaLimits {
  maxSandboxes: number;
  createsPerSecond: number;
}

/** Why a create was refused; `retryAfterS` goes to the Retry-After header of the 429. */
export interface QuotaRefusal {
  message: string;
  retryAfterS: number;
}

interface KeyState {
  live: number;
  tokens: number;
  refilledAtMs: number;
}

export class Quotas {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly limits: QuotaLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes `count` sandbox slots and create tokens for `keyId`, or says why not. The slots are held until
   * `release` is called for each sandbox (a failed create releases its own).
   */
  acquire(keyId: string, count = 1): QuotaRefusal | undefined {
    const state = this.state(keyId);
    if (state.live + count > this.limits.maxSandboxes) {
      return {
        message:
          `this key has ${state.live} sandboxes of its quota of ${this.limits.maxSandboxes}; ` +
          'kill some (or let them expire) before creating more',
        retryAfterS: 1,
      };
    }
    this.refill(state);
    if (state.tokens < count) {
      const rate = this.limits.createsPerSecond;
      return {
        message: `this key creates sandboxes too fast: its quota is ${rate} per second`,
        retryAfterS: Math.max(1, Math.ceil((count - state.tokens) / rate)),
      };
    }
    state.tokens -= count;
    state.live += count;
    return undefined;
  }

  release(keyId: string, count = 1): void {
    const state = this.keys.get(keyId);
    if (!state) return;
    state.live = Math.max(0, state.live - count);
  }

  live(keyId: string): number {
    return this.keys.get(keyId)?.live ?? 0;
  }

  private state(keyId: string): KeyState {
    let state = this.keys.get(keyId);
    if (!state) {
      state = { live: 0, tokens: this.capacity(), refilledAtMs: this.now() };
      this.keys.set(keyId, state);
    }
    return state;
  }

  private refill(state: KeyState): void {
    const now = this.now();
    const earned = ((now - state.refilledAtMs) / 1000) * this.limits.createsPerSecond;
    state.tokens = Math.min(this.capacity(), state.tokens + earned);
    state.refilledAtMs = now;
  }

  private capacity(): number {
    return Math.max(1, this.limits.createsPerSecond);
  }
}
