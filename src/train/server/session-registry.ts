import { randomUUID } from 'node:crypto';
import { HttpError } from './http-error.ts';

interface Session {
  lastSeenMs: number;
  modelIds: Set<string>;
}

/**
 * The server's client sessions: created by create_session, kept alive by heartbeats (and by any
 * request on their models). A session silent for `timeoutMs` expires and its models are unloaded,
 * so a client that crashed leaves nothing loaded behind.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly onExpired: (modelIds: string[]) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(timeoutMs / 4, 30_000));
    this.sweeper.unref();
  }

  create(): string {
    const id = `session_${randomUUID().slice(0, 8)}`;
    this.sessions.set(id, { lastSeenMs: Date.now(), modelIds: new Set() });
    return id;
  }

  /** Marks session `id` alive; 404 when it is unknown or expired. */
  touch(id: string): void {
    const session = this.sessions.get(id);
    if (!session) {
      throw new HttpError(
        404,
        `session ${id} is unknown (expired after ${this.timeoutMs} ms without heartbeats, or the server restarted); create a new session`,
      );
    }
    session.lastSeenMs = Date.now();
  }

  addModel(sessionId: string, modelId: string): void {
    this.touch(sessionId);
    this.sessions.get(sessionId)!.modelIds.add(modelId);
  }

  removeModel(sessionId: string, modelId: string): void {
    this.sessions.get(sessionId)?.modelIds.delete(modelId);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeenMs <= this.timeoutMs) continue;
      this.sessions.delete(id);
      this.onExpired([...session.modelIds]);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
