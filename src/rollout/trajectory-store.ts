import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Trajectory } from '../agent/types.ts';
import { DatasetError } from '../errors.ts';

/** The key a trajectory is stored under: one per task and sample index. */
export function trajectoryKey(t: Pick<Trajectory, 'taskId' | 'sample'>): string {
  return `${t.taskId}#${t.sample}`;
}

/**
 * An append-only JSONL file of finished trajectories. Each trajectory is written as one line the moment it
 * ends, so a killed run loses nothing finished; opening an existing file reads what is done so a rerun skips
 * it. A line cut short by a kill mid-write is dropped (and cut from the file) on open.
 */
export class TrajectoryStore {
  private readonly done = new Map<string, Trajectory>();
  private fd: number | undefined;

  private constructor(readonly path: string) {}

  static open(path: string): TrajectoryStore {
    const store = new TrajectoryStore(path);
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) store.load();
    store.fd = openSync(path, 'a');
    return store;
  }

  private load(): void {
    const text = readFileSync(this.path, 'utf8');
    let validBytes = 0;
    let offset = 0;
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      const isLast = i === lines.length - 1;
      const lineBytes = Buffer.byteLength(line) + (isLast ? 0 : 1);
      offset += lineBytes;
      if (line.trim() === '') {
        if (!isLast) validBytes = offset;
        continue;
      }
      let t: Trajectory;
      try {
        t = JSON.parse(line) as Trajectory;
      } catch (e) {
        if (isLast) break; // a write cut short by a kill: drop it
        throw new DatasetError(
          `${this.path}:${i + 1}: not valid JSON; the trajectory file is damaged (${(e as Error).message})`,
        );
      }
      if (isLast) break; // no newline yet: the write was cut short
      this.done.set(trajectoryKey(t), t);
      validBytes = offset;
    }
    if (validBytes < Buffer.byteLength(text)) truncateSync(this.path, validBytes);
  }

  has(key: string): boolean {
    return this.done.has(key);
  }

  get(key: string): Trajectory | undefined {
    return this.done.get(key);
  }

  get size(): number {
    return this.done.size;
  }

  all(): Trajectory[] {
    return [...this.done.values()];
  }

  /**
   * The trajectories of `tasks` with a sample index below `samples`, in task then sample order rather than
   * the order episodes happened to finish: what trains on them is then the same on every run and resume.
   */
  forTasks(tasks: readonly { id: string }[], samples: number): Trajectory[] {
    return tasks.flatMap((task) =>
      Array.from({ length: samples }, (_, sample) => this.done.get(`${task.id}#${sample}`)).filter(
        (t): t is Trajectory => t !== undefined,
      ),
    );
  }

  append(t: Trajectory): void {
    if (this.fd === undefined) throw new Error(`trajectory store ${this.path} is closed`);
    // One write of the whole line: with O_APPEND it lands whole or, on a kill, as a prefix dropped on reopen.
    writeSync(this.fd, `${JSON.stringify(t)}\n`);
    this.done.set(trajectoryKey(t), t);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
