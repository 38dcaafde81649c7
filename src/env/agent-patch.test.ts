import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graderOwnedPaths } from './agent-patch.ts';
import { debugTask, r2eTask, sweTask } from './testing/fixture-tasks.ts';

const TEST_PATCH = `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -1 +1,2 @@
 import calc
+assert calc.double(2) == 4
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+import calc
`;

describe('graderOwnedPaths', () => {
  it("is the test patch's files for SWE-bench tasks", () => {
    const task = sweTask({ image: 'x', baseCommit: 'a'.repeat(40), testPatch: TEST_PATCH });
    assert.deepEqual(graderOwnedPaths(task), ['tests/test_calc.py', 'tests/test_new.py']);
  });

  it("is R2E-Gym's hidden tests and script, inside the repository", () => {
    assert.deepEqual(graderOwnedPaths(r2eTask('x')), ['r2e_tests', 'run_tests.sh']);
  });

  it("is a debugging task's read-only files and SWE-PDB's marker files", () => {
    assert.deepEqual(graderOwnedPaths(debugTask()), ['test.py', '.debugreadonly', '.debugignore']);
  });
});
