import { z } from 'zod';
import { jsonObject, optionalText, requiredText } from './cells.ts';
import type { R2eTask, TestSpec } from './types.ts';

/**
 * An R2E-Gym row (R2E-Gym-Subset and its relatives). The published columns are repo_name, docker_image,
 * commit_hash, parsed_commit_content, execution_result_content, modified_files, modified_entity_summaries,
 * relevant_files, num_non_test_*, prompt, problem_statement and expected_output_json; only those the
 * harness needs are checked, the rest stay in `raw`. Some derived sets add a gold `patch`.
 */
const r2eRowSchema = z.looseObject({
  repo_name: requiredText,
  docker_image: requiredText,
  commit_hash: requiredText,
  problem_statement: requiredText,
  expected_output_json: jsonObject(
    z.record(z.string(), z.string({ error: 'expected test statuses as strings' }), {
      error: 'expected a JSON object of test name to status',
    }),
  ),
  patch: optionalText,
});

/**
 * R2E-Gym's images keep the repository in /testbed, its hidden tests in /r2e_tests and `run_tests.sh` in
 * the repository; R2E-Gym's environment moves the script to /root (and the tests behind a symlink) to hide
 * them from the agent. The command works either way: it links the tests where the script expects them and
 * runs the script from wherever it is.
 */
const R2E_TEST_COMMAND = [
  'if [ ! -e r2e_tests ] && [ -d /r2e_tests ]; then ln -s /r2e_tests r2e_tests; fi',
  'if [ -f /root/run_tests.sh ]; then bash /root/run_tests.sh; else bash run_tests.sh; fi',
].join('\n');

export function parseR2eRow(row: Record<string, unknown>): R2eTask {
  const r = r2eRowSchema.parse(row);
  const test: TestSpec = {
    workdir: '/testbed',
    setup: [],
    command: R2E_TEST_COMMAND,
    logParser: 'r2e_pytest',
  };
  return {
    kind: 'r2e',
    id: `${r.repo_name}-${r.commit_hash}`,
    image: r.docker_image,
    repo: r.repo_name,
    problemStatement: issueText(r.problem_statement),
    patch: r.patch,
    test,
    raw: row,
    commitHash: r.commit_hash,
    expectedOutput: r.expected_output_json,
  };
}

/** R2E-Gym shows the agent only what is between [ISSUE] and [/ISSUE], when the statement has them. */
function issueText(statement: string): string {
  const m = /\[ISSUE\]([\s\S]*)\[\/ISSUE\]/.exec(statement);
  return m ? m[1]!.trim() : statement;
}
