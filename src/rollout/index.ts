/**
 * Many episodes at once: the rollout engine (groups of rollout.n, concurrency limits, fork + warm pool,
 * retries of infrastructure faults), the append-only trajectory store, and run summaries.
 */

export { checkErrorFraction, countErrors, type ErrorCounts, tooManyErrors } from './error-fraction.ts';
export { exportVerlBatch, type VerlExportOptions, type VerlExportSample } from './export-verl.ts';
export {
  RolloutEngine,
  type RolloutOptions,
  type RolloutResult,
  type RolloutStats,
} from './rollout-engine.ts';
export { Semaphore } from './semaphore.ts';
export { formatSummary, type RunSummary, summarize } from './summarize.ts';
export { trajectoriesToParquet } from './trajectories-parquet.ts';
export { TrajectoryStore, trajectoryKey } from './trajectory-store.ts';
