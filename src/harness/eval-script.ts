import { shellQuote, type Task, testFilesToReset } from '../tasks/index.ts';
import {
  END_TEST_OUTPUT,
  RESET_FAILED,
  START_TEST_OUTPUT,
  TEST_EXIT_CODE,
  TEST_EXIT_CODE_VAR,
} from './markers.ts';

/** Where the harness puts its files inside the sandbox. */
export const HARNESS_DIR = '/tmp/sandgym-eval';

export interface EvalPlan {
  /** Files to write before running, absolute paths inside the sandbox. */
  files: { path: string; content: string }[];
  /** The shell command that runs the tests; its output (stderr merged) is the evaluation log. */
  command: string;
}

/**
 * The eval script of a task, shaped as SWE-bench's (`#!/bin/bash`, `set -uxo pipefail`, so the markers
 * appear as traced `: '>>>>> …'` lines): reset the test files the test patch changes to base_commit,
 * apply the test patch, run the test command between the start and end markers, record its exit code
 * after the end marker, reset the test files again. A SWE-bench 5 row's own eval script is used as
 * published, with the exit-code lines added as SWE-bench 5 adds them. Debugging tasks get their
 * read-only files written back first, so edits to the tests do not count.
 */
export function buildEvalPlan(task: Task, harnessDir: string = HARNESS_DIR): EvalPlan {
  const files: EvalPlan['files'] = [];
  const script =
    task.kind === 'swe' && task.test.evalScript
      ? recordTestExitCode(task.test.evalScript)
      : buildScript(task, harnessDir, (path, content) => files.push({ path, content }));
  files.push({ path: `${harnessDir}/eval.sh`, content: script });
  return { files, command: `/bin/bash ${shellQuote(`${harnessDir}/eval.sh`)} 2>&1` };
}

function buildScript(
  task: Task,
  harnessDir: string,
  addFile: (path: string, content: string) => void,
): string {
  const { workdir, setup, command } = task.test;
  const lines = ['#!/bin/bash', 'set -uxo pipefail', `cd ${shellQuote(workdir)}`, ...setup];
  let reset: string | undefined;
  if (task.kind === 'swe') {
    const toReset = testFilesToReset(task.testPatch);
    if (toReset.length > 0) {
      reset = `git checkout ${shellQuote(task.baseCommit)} -- ${toReset.map(shellQuote).join(' ')}`;
      lines.push(`${reset} || echo '${RESET_FAILED}'`);
    }
    if (task.testPatch.trim()) {
      addFile(`${harnessDir}/test.patch`, withFinalNewline(task.testPatch));
      lines.push(`git apply -v ${shellQuote(`${harnessDir}/test.patch`)}`);
    }
  }
  if (task.kind === 'debug') {
    for (const path of task.readOnly) {
      const file = task.files.find((f) => f.path === path);
      if (file) addFile(`${workdir}/${path}`, file.content);
    }
  }
  lines.push(
    `: '${START_TEST_OUTPUT}'`,
    command,
    `${TEST_EXIT_CODE_VAR}=$?`,
    `: '${END_TEST_OUTPUT}'`,
    `echo "${TEST_EXIT_CODE}: $${TEST_EXIT_CODE_VAR}"`,
  );
  if (reset) lines.push(reset);
  return `${lines.join('\n')}\n`;
}

/** SWE-bench 5's record_test_exit_code: capture `$?` before the end marker, print it after. */
export function recordTestExitCode(script: string): string {
  const lines = script.split('\n');
  const end = lines.findIndex((l) => l.includes(END_TEST_OUTPUT));
  if (end === -1) return script;
  lines.splice(
    end,
    1,
    `${TEST_EXIT_CODE_VAR}=$?`,
    lines[end]!,
    `echo "${TEST_EXIT_CODE}: $${TEST_EXIT_CODE_VAR}"`,
  );
  return lines.join('\n');
}

// `git apply` rejects a patch whose last line lacks its newline ("corrupt patch").
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
