import { parquetWriteBuffer } from 'hyparquet-writer';
import type { Trajectory } from '../agent/types.ts';

/**
 * Trajectories as a Parquet table (one row each) for pandas/DuckDB/datasets users: the scalar fields as
 * columns, messages, turns and grade as JSON text columns. The JSONL store stays the source of truth.
 */
export function trajectoriesToParquet(trajectories: readonly Trajectory[]): ArrayBuffer {
  const col = <T>(f: (t: Trajectory) => T) => trajectories.map(f);
  return parquetWriteBuffer({
    columnData: [
      { name: 'task_id', data: col((t) => t.taskId), type: 'STRING' },
      { name: 'sample', data: col((t) => t.sample), type: 'INT32' },
      { name: 'policy', data: col((t) => t.policy), type: 'STRING' },
      { name: 'termination', data: col((t) => t.termination), type: 'STRING' },
      { name: 'reward', data: col((t) => t.reward), type: 'DOUBLE', nullable: true },
      { name: 'steps', data: col((t) => t.turns.length), type: 'INT32' },
      { name: 'patch', data: col((t) => t.patch), type: 'STRING' },
      { name: 'episode_ms', data: col((t) => t.timing.episodeMs), type: 'DOUBLE' },
      { name: 'messages', data: col((t) => t.messages), type: 'JSON' },
      { name: 'turns', data: col((t) => t.turns), type: 'JSON' },
      { name: 'grade', data: col((t) => t.grade ?? null), type: 'JSON' },
      { name: 'format', data: col((t) => t.format), type: 'STRING' },
    ],
  });
}
