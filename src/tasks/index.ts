/**
 * Tasks: the `Task` type (SWE-bench, R2E-Gym and single-file debugging tasks normalized into one),
 * loaders for JSONL/JSON/Parquet files and directories and for Hugging Face Hub datasets, and ordering
 * by image.
 */

export { type BundledImageOptions, buildBundledImages } from './bundled-images.ts';
export { BUNDLED_DATASETS, type ResolveOptions, resolveDatasetSpec } from './dataset-spec.ts';
export { type DiffFile, diffFilePath, diffFiles } from './diff-files.ts';
export {
  DEFAULT_HUB_ENDPOINT,
  downloadHubDataset,
  type HubDatasetOptions,
  hubSettingsFromEnv,
} from './hub-download.ts';
export {
  describeRow,
  InvalidRowError,
  type LoadedTasks,
  type LoadTasksOptions,
  loadTasks,
  type SkippedRow,
} from './load-tasks.ts';
export { groupByImage, sortByImage } from './order-by-image.ts';
export { DEFAULT_DEBUG_ENTRYPOINT, DEFAULT_DEBUG_IMAGE } from './parse-debug-row.ts';
export { SWE_WORKDIR } from './parse-swe-row.ts';
export {
  detectKind,
  type ParseRowOptions,
  parseTaskRow,
  type RowProblem,
  type RowResult,
} from './parse-task-row.ts';
export { DATA_FILE_EXTENSIONS, type RawRow, type ReadRowsOptions, readRows } from './read-rows.ts';
export { shellQuote } from './shell-quote.ts';
export { FAIL_ONLY_REPOS, swebenchImage, testDirectives, testFilesToReset } from './swebench-specs.ts';
export type {
  DebugFile,
  DebugTask,
  EvalType,
  R2eTask,
  SweTask,
  Task,
  TaskKind,
  TaskSource,
  TestSpec,
} from './types.ts';
