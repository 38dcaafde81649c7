import type { Task } from '../tasks/index.ts';
import type { Grade } from './grade.ts';
import { gradePytestCounts } from './grade-pytest-counts.ts';
import { gradeR2e } from './grade-r2e.ts';
import { gradeSwebench } from './grade-swebench.ts';
import { getLogParser } from './log-parsers.ts';
import type { TestReport } from './test-report.ts';

/**
 * Grades an evaluation log by the rule of the task's dataset: SWE-bench's for SWE-bench tasks (and
 * debugging tasks that carry test lists), R2E-Gym's exact match for R2E-Gym tasks, SWE-PDB's pytest counts
 * for debugging tasks without lists. Pure: the same log always gets the same grade.
 */
export function gradeLog(task: Task, log: string): { grade: Grade; report: TestReport } {
  const parser = getLogParser(task.test.logParser);
  switch (task.kind) {
    case 'swe':
      return gradeSwebench(log, parser, task);
    case 'r2e':
      return gradeR2e(log, parser, task.expectedOutput);
    case 'debug':
      if (task.FAIL_TO_PASS && task.PASS_TO_PASS) {
        return gradeSwebench(log, parser, {
          FAIL_TO_PASS: task.FAIL_TO_PASS,
          PASS_TO_PASS: task.PASS_TO_PASS,
          evalType: 'pass_and_fail',
        });
      }
      return gradePytestCounts(log, parser);
  }
}
