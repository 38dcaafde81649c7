import type { Sandbox } from '../sandbox/index.ts';
import { ProcessTable } from './process-table.ts';

/** A sandbox served to one key, with what the E2B API says about it. */
export interface ServedSandbox {
  id: string;
  keyId: string;
  sandbox: Sandbox;
  templateID: string;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  startedAtMs: number;
  /** When the server kills it; the E2B "timeout" moves it. */
  endAtMs: number;
  network: boolean;
  /** The envd-plane credential (X-Access-Token), shown to the key's holder at create. */
  envdAccessToken: string;
  processes: ProcessTable;
  /** Set while paused: how much of its timeout was left when it was paused (paused time does not count). */
  pausedRemainingMs?: number | undefined;
}

/** Node's timers cannot wait longer (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The sandboxes the server holds, each killed at its end time. A killed sandbox leaves the registry
 * before it is closed, so no request can reach it once its end has begun.
 */
export class SandboxRegistry {
  private readonly entries = new Map<string, { served: ServedSandbox; timer: NodeJS.Timeout }>();

  constructor(
    /** Called once per sandbox when it leaves (killed, expired or shut down). */
    private readonly onRemoved: (served: ServedSandbox, why: 'killed' | 'expired' | 'shutdown') => void,
    private readonly onCloseError: (served: ServedSandbox, e: unknown) => void,
  ) {}

  add(init: Omit<ServedSandbox, 'processes'>): ServedSandbox {
    const served: ServedSandbox = { ...init, processes: new ProcessTable() };
    this.entries.set(served.id, { served, timer: this.expiryTimer(served) });
    return served;
  }

  get(id: string): ServedSandbox | undefined {
    return this.entries.get(id)?.served;
  }

  all(): ServedSandbox[] {
    return [...this.entries.values()].map((e) => e.served);
  }

  ownedBy(keyId: string): ServedSandbox[] {
    return [...this.entries.values()].map((e) => e.served).filter((s) => s.keyId === keyId);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Moves a sandbox's end to `endAtMs` (the E2B timeout counts from the call). */
  setEnd(id: string, endAtMs: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.served.endAtMs = endAtMs;
    entry.timer = this.expiryTimer(entry.served);
  }

  /**
   * Pauses a sandbox's clock: what is left of its timeout is kept for `resumed`, and while paused it
   * ends `maxPausedMs` from now (a forgotten paused sandbox still holds memory).
   */
  paused(id: string, maxPausedMs: number): void {
    const served = this.get(id);
    if (!served) return;
    served.pausedRemainingMs = Math.max(0, served.endAtMs - Date.now());
    this.setEnd(id, Date.now() + maxPausedMs);
  }

  /** Restarts a paused sandbox's clock with what was left, or `atLeastMs` if that is more. */
  resumed(id: string, atLeastMs: number): void {
    const served = this.get(id);
    if (served?.pausedRemainingMs === undefined) return;
    const left = served.pausedRemainingMs;
    served.pausedRemainingMs = undefined;
    this.setEnd(id, Date.now() + Math.max(left, atLeastMs));
  }

  /** Removes and closes a sandbox; false when it was not here. */
  async kill(id: string, why: 'killed' | 'expired' | 'shutdown' = 'killed'): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    clearTimeout(entry.timer);
    this.onRemoved(entry.served, why);
    // A paused container cannot be killed (docker refuses; a frozen v1 cgroup holds its SIGKILLs).
    if (entry.served.pausedRemainingMs !== undefined) await entry.served.sandbox.resume?.().catch(() => {});
    await entry.served.sandbox.close().catch((e: unknown) => this.onCloseError(entry.served, e));
    return true;
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.kill(id, 'shutdown')));
  }

  private expiryTimer(served: ServedSandbox): NodeJS.Timeout {
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, served.endAtMs - Date.now()));
    const timer = setTimeout(() => {
      if (Date.now() >= served.endAtMs) void this.kill(served.id, 'expired');
      else this.setEnd(served.id, served.endAtMs);
    }, wait);
    timer.unref();
    return timer;
  }
}
