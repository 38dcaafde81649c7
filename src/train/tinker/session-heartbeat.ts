import { errorMessage } from '../../errors.ts';
import type { TinkerHttp } from './tinker-http.ts';

/** As the Tinker SDK: warn once heartbeats have failed for this long. */
const WARN_AFTER_MS = 120_000;

/**
 * Tells the server every `intervalMs` that session `sessionId` is alive, so it keeps the session's
 * models loaded; servers unload the models of sessions that fall silent. A failed heartbeat is only
 * worth a warning, and only once they have failed for two minutes.
 */
export class SessionHeartbeat {
  private readonly timer: NodeJS.Timeout;
  private lastOkMs = Date.now();
  private stopped = false;

  constructor(
    private readonly http: TinkerHttp,
    private readonly sessionId: string,
    intervalMs: number,
    private readonly onWarning?: (message: string) => void,
  ) {
    this.timer = setInterval(() => this.beat(intervalMs), intervalMs);
    this.timer.unref();
  }

  private beat(timeoutMs: number): void {
    this.http.attempt('POST', 'session_heartbeat', { session_id: this.sessionId }, { timeoutMs }).then(
      () => {
        this.lastOkMs = Date.now();
      },
      (e: unknown) => {
        const silentMs = Date.now() - this.lastOkMs;
        if (this.stopped || silentMs <= WARN_AFTER_MS) return;
        this.onWarning?.(
          `tinker engine: session ${this.sessionId} has had no heartbeat through for ${Math.round(silentMs / 1000)} s (${errorMessage(e)}); the server may unload its models`,
        );
      },
    );
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }
}
