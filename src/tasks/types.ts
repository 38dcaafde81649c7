/**
 * The one task type the rest of sandgym uses, normalized from the three row layouts sandgym reads:
 * SWE-bench (Lite, Verified, and compatible sets such as SWE-Gym or R2E-Gym's SWE-bench copies), R2E-Gym
 * (R2E-Gym-Subset and its relatives) and single-file debugging tasks in the SWE-PDB/KodCode layout.
 * Every task keeps the row it came from (`raw`) and says where that row was (`source`).
 */

export type TaskKind = 'swe' | 'r2e' | 'debug';

/** How a task's tests run inside its sandbox, and how their output is read. */
export interface TestSpec {
  /** The repository (or the debug task's files) inside the sandbox; commands run here. */
  workdir: string;
  /** Shell lines run before the tests in the same shell, e.g. activating SWE-bench's conda env. */
  setup: string[];
  /** The shell command that runs the tests. */
  command: string;
  /** Name of the harness log parser that reads the command's output (`pytest`, `django`, `r2e_pytest`, …). */
  logParser: string;
  /**
   * SWE-bench 5 publishes each instance's whole eval script; when present it is run as published instead
   * of a script built from `command` (it applies the test patch and prints the markers itself).
   */
  evalScript?: string;
}

/** Where a task's row was read from: a file and the 1-based row (the line number in JSONL files). */
export interface TaskSource {
  file: string;
  row: number;
}

interface TaskBase {
  kind: TaskKind;
  /** Unique in a dataset: SWE-bench's instance_id, `<repo_name>-<commit_hash>` for R2E-Gym, task_id. */
  id: string;
  /** The sandbox image the task runs in. */
  image: string;
  /** `owner/name` for SWE-bench, R2E-Gym's repo_name, the debug task's task_name. */
  repo: string;
  problemStatement: string;
  /** The gold patch, when the dataset has one ('' when it does not). */
  patch: string;
  test: TestSpec;
  /** The row as read, with JSON-string columns left as they were. */
  raw: Record<string, unknown>;
  source?: TaskSource;
}

/** SWE-bench's grading mode: FAIL_ONLY counts a test as passing unless the log says it FAILED. */
export type EvalType = 'pass_and_fail' | 'fail_only';

export interface SweTask extends TaskBase {
  kind: 'swe';
  baseCommit: string;
  testPatch: string;
  hintsText: string;
  version: string;
  /** ISO 8601 as published ('' when absent). */
  createdAt: string;
  environmentSetupCommit: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  evalType: EvalType;
}

export interface R2eTask extends TaskBase {
  kind: 'r2e';
  commitHash: string;
  /** expected_output_json parsed: test name → status the grader requires, every one of them. */
  expectedOutput: Record<string, string>;
}

export interface DebugFile {
  /** Relative to the task's workdir. */
  path: string;
  content: string;
}

export interface DebugTask extends TaskBase {
  kind: 'debug';
  taskName: string;
  /** The files the task starts from: the buggy program and its tests. */
  files: DebugFile[];
  /** Files the agent may not change; the harness restores them before grading. */
  readOnly: string[];
  /** The dataset's command, as published (`test.command` adds `-rA` to pytest commands). */
  entrypoint: string;
  /**
   * Test lists, when the dataset has them (sandgym's bundled tasks do; SWE-PDB's do not). With them the
   * task is graded by SWE-bench's rule; without them every test in the log must pass, as SWE-PDB grades.
   */
  FAIL_TO_PASS?: string[];
  PASS_TO_PASS?: string[];
}

export type Task = SweTask | R2eTask | DebugTask;
