import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUnifiedDiff } from './parse-unified-diff.ts';

const diff = `diff --git a/pkg/calc.py b/pkg/calc.py
index 1111111..2222222 100644
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,4 +1,4 @@
 def add(a, b):
-    return a - b
+    return a + b
 
 
@@ -10,3 +10,4 @@ def mul(a, b):
 def div(a, b):
+    assert b != 0
     return a / b
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+X = 1
+Y = 2
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`;

describe('parseUnifiedDiff', () => {
  it('splits files and hunks with old and new text', () => {
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(
      files.map((f) => [f.path, f.kind, f.hunks.length]),
      [
        ['pkg/calc.py', 'modify', 2],
        ['pkg/new.py', 'create', 1],
        ['old.txt', 'delete', 1],
      ],
    );
    assert.deepEqual(files[0]!.hunks[0], {
      oldText: 'def add(a, b):\n    return a - b\n\n\n',
      newText: 'def add(a, b):\n    return a + b\n\n\n',
    });
    assert.deepEqual(files[0]!.hunks[1], {
      oldText: 'def div(a, b):\n    return a / b\n',
      newText: 'def div(a, b):\n    assert b != 0\n    return a / b\n',
    });
  });

  it('honours "No newline at end of file"', () => {
    const created = parseUnifiedDiff(diff)[1]!;
    assert.equal(created.hunks[0]!.newText, 'X = 1\nY = 2');
    assert.equal(created.hunks[0]!.oldText, '');
  });

  it('returns nothing for an empty patch', () => {
    assert.deepEqual(parseUnifiedDiff(''), []);
  });
});
