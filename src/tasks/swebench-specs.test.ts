import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  swebenchImage,
  swebenchLogParser,
  swebenchTestCmd,
  testDirectives,
  testFilesToReset,
} from './swebench-specs.ts';

const TEST_PATCH = [
  'diff --git a/tests/model_fields/test_decimal.py b/tests/model_fields/test_decimal.py',
  '--- a/tests/model_fields/test_decimal.py',
  '+++ b/tests/model_fields/test_decimal.py',
  '@@ -1 +1,2 @@',
  ' x',
  '+y',
  'diff --git a/tests/model_fields/fixtures/data.json b/tests/model_fields/fixtures/data.json',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/tests/model_fields/fixtures/data.json',
  '@@ -0,0 +1 @@',
  '+{}',
  'diff --git a/tests/new_test.py b/tests/new_test.py',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/tests/new_test.py',
  '@@ -0,0 +1 @@',
  '+z',
].join('\n');

test('test directives: the test files of the test patch, data files left out', () => {
  assert.deepEqual(testDirectives('pallets/flask', TEST_PATCH), [
    'tests/model_fields/test_decimal.py',
    'tests/new_test.py',
  ]);
});

test('Django directives are module names relative to tests/', () => {
  assert.deepEqual(testDirectives('django/django', TEST_PATCH), ['model_fields.test_decimal', 'new_test']);
});

test('only files that exist before the test patch are reset to base_commit', () => {
  assert.deepEqual(testFilesToReset(TEST_PATCH), ['tests/model_fields/test_decimal.py']);
});

test('per-repository test commands and parsers, with version exceptions', () => {
  assert.equal(
    swebenchTestCmd('django/django', '3.0'),
    './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1',
  );
  assert.equal(swebenchTestCmd('django/django', '1.9'), './tests/runtests.py --verbosity 2');
  assert.equal(
    swebenchTestCmd('astropy/astropy', '1.3'),
    'pytest -rA -vv -o console_output_style=classic --tb=no',
  );
  assert.equal(swebenchTestCmd('astropy/astropy', '5.0'), 'pytest -rA');
  assert.match(swebenchTestCmd('sympy/sympy', '1.12'), /bin\/test -C --verbose$/);
  assert.equal(swebenchTestCmd('someone/unknown', '1.0'), 'pytest -rA');
  assert.equal(swebenchLogParser('sympy/sympy'), 'sympy');
  assert.equal(swebenchLogParser('psf/requests'), 'pytest_options');
  assert.equal(swebenchLogParser('someone/unknown'), 'pytest');
});

test('SWE-bench image names spell "__" as "_1776_" and are lower-case', () => {
  assert.equal(
    swebenchImage('django__django-11099'),
    'swebench/sweb.eval.x86_64.django_1776_django-11099:latest',
  );
  assert.equal(swebenchImage('Org__Repo-1'), 'swebench/sweb.eval.x86_64.org_1776_repo-1:latest');
});
