import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { renderInstruction } from './render-instruction.ts';
import { debugTask, r2eTask, sweTask } from './testing/fixture-tasks.ts';

describe('renderInstruction', () => {
  it('gives an issue task its statement, where the repository is, and what done means', () => {
    const text = renderInstruction(sweTask({ image: 'x', baseCommit: 'a'.repeat(40), testPatch: '' }));
    assert.match(text, /<issue>\ndouble\(x\) returns x \+ 1 instead of twice x\.\n<\/issue>/);
    assert.match(text, /checked out at \/testbed/);
    assert.match(text, /call finish/);
    assert.match(
      renderInstruction(r2eTask('x')),
      /<issue>\ndouble\(x\) is wrong\n<\/issue>/,
      "R2E's [ISSUE] text",
    );
  });

  it('gives a debugging task its files, the read-only ones and the test command', () => {
    const text = renderInstruction(debugTask());
    assert.match(text, /^Investigate the repository/);
    assert.match(text, /in \/testbed: solution\.py, test\.py\./);
    assert.match(text, /Read-only \(you cannot change them\): test\.py\./);
    assert.match(text, /The tests run with: python -m pytest --tb=no -s test\.py/);
  });

  it('fills a custom template and rejects an unknown placeholder, listing the valid ones', () => {
    assert.equal(
      renderInstruction(debugTask(), '{{ task_id }} in {{repo_dir}}'),
      'fixture-debug-add in /testbed',
    );
    assert.throws(
      () => renderInstruction(debugTask(), 'Fix {{problem}}'),
      (e: unknown) => isConfigError(e) && /\{\{problem\}\}.*valid: \{\{problem_statement\}\}/.test(e.message),
    );
  });
});
