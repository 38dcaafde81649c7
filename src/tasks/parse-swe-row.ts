import { z } from 'zod';
import { optionalText, requiredText, stringList, timestampText } from './cells.ts';
import { shellQuote } from './shell-quote.ts';
import {
  FAIL_ONLY_REPOS,
  swebenchImage,
  swebenchLogParser,
  swebenchTestCmd,
  testDirectives,
} from './swebench-specs.ts';
import type { SweTask, TestSpec } from './types.ts';

/**
 * A SWE-bench row. Columns of SWE-bench Lite/Verified as published, plus what later layouts add:
 * SWE-bench 5's `image`, `eval_script`, `log_parser` and `eval_type`; `docker_image` (R2E-Gym's and
 * SWE-Gym's copies); `image_name` (SWE-smith); and sandgym's own `test_cmd`. Other columns are kept in `raw`.
 */
const sweRowSchema = z.looseObject({
  instance_id: requiredText,
  repo: requiredText,
  base_commit: requiredText,
  patch: optionalText,
  test_patch: optionalText,
  problem_statement: requiredText,
  hints_text: optionalText,
  version: z
    .union([z.string(), z.number()], { error: 'expected a string' })
    .nullish()
    .transform((v) => (v === null || v === undefined ? '' : String(v))),
  created_at: timestampText,
  environment_setup_commit: optionalText,
  FAIL_TO_PASS: stringList,
  PASS_TO_PASS: stringList,
  image: optionalText,
  docker_image: optionalText,
  image_name: optionalText,
  eval_script: optionalText,
  log_parser: optionalText,
  eval_type: z.enum(['pass_and_fail', 'fail_only']).nullish(),
  test_cmd: optionalText,
});

/** The repository's place in SWE-bench images; sandgym's own images use it too. */
export const SWE_WORKDIR = '/testbed';

// SWE-bench images keep the repository's environment in conda env "testbed"; other images have no conda.
const CONDA_SETUP =
  'if [ -f /opt/miniconda3/bin/activate ]; then source /opt/miniconda3/bin/activate && conda activate testbed; fi';

export function parseSweRow(row: Record<string, unknown>): SweTask {
  const r = sweRowSchema.parse(row);
  return {
    kind: 'swe',
    id: r.instance_id,
    image: r.image || r.docker_image || r.image_name || swebenchImage(r.instance_id),
    repo: r.repo,
    problemStatement: r.problem_statement,
    patch: r.patch,
    test: sweTestSpec(r),
    raw: row,
    baseCommit: r.base_commit,
    testPatch: r.test_patch,
    hintsText: r.hints_text,
    version: r.version,
    createdAt: r.created_at,
    environmentSetupCommit: r.environment_setup_commit,
    FAIL_TO_PASS: r.FAIL_TO_PASS,
    PASS_TO_PASS: r.PASS_TO_PASS,
    evalType: r.eval_type ?? (FAIL_ONLY_REPOS.has(r.repo) ? 'fail_only' : 'pass_and_fail'),
  };
}

function sweTestSpec(r: z.infer<typeof sweRowSchema>): TestSpec {
  const directives = testDirectives(r.repo, r.test_patch);
  const base = r.test_cmd || swebenchTestCmd(r.repo, r.version);
  const spec: TestSpec = {
    workdir: SWE_WORKDIR,
    setup: [CONDA_SETUP],
    command: [base, ...directives.map(shellQuote)].join(' '),
    logParser: normalizeParserName(r.log_parser) || swebenchLogParser(r.repo),
  };
  if (r.eval_script) spec.evalScript = r.eval_script;
  return spec;
}

/** SWE-bench 5 names parsers after their functions (`parse_log_pytest`); sandgym drops the prefix. */
function normalizeParserName(name: string): string {
  return name.startsWith('parse_log_') ? name.slice('parse_log_'.length) : name;
}
