/** A row of swe.jsonl: SWE-bench's columns (list columns as JSON text, as published) plus `image`. */
export interface SweRow {
  repo: string;
  instance_id: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  hints_text: string;
  created_at: string;
  version: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  environment_setup_commit: string;
  image: string;
}

/** A row of debug.jsonl: SWE-PDB's columns, plus our gold `patch` and the computed test lists. */
export interface DebugRow {
  task_id: string;
  problem_statement: string;
  /** The chat as JSON text, as SWE-PDB's parquet stores it. */
  prompt: string;
  extra_info: {
    entrypoint: string;
    files: { path: string; content: string }[];
    task_name: string;
  };
  patch: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
}

/** The test files a test patch touches: SWE-bench runs exactly these. */
export function testPatchFiles(testPatch: string): string[] {
  return [...testPatch.matchAll(/^diff --git a\/\S+ b\/(\S+)$/gm)].map((m) => m[1]!);
}
