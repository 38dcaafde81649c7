import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parseDjango } from './parse-django.ts';

test("Django's runner by SWE-bench's rule: printed names, docstrings, interleaved output, FAIL: headers", () => {
  const py39 = reportStatuses(
    parseDjango(fixtureLog('django/outcomes-verbose.django-3.2.25.python-3.9.18.log')),
  );
  assert.deepEqual(py39, {
    'test_create (shop.tests.ItemTests)': 'PASSED',
    'Creating an item twice keeps both rows.': 'PASSED',
    'test_error (shop.tests.ItemTests)': 'ERROR',
    'test_fail (shop.tests.ItemTests)': 'FAILED',
    'test_skip (shop.tests.ItemTests)': 'SKIPPED',
    // "... System check identified no issues (0 silenced).\nok" and a logged traceback before "ok":
    'test_check_command (shop.tests.CommandTests)': 'PASSED',
    'test_server_error (shop.tests.CommandTests)': 'PASSED',
    test_error: 'ERROR',
    test_fail: 'FAILED',
  });
  const py311 = reportStatuses(
    parseDjango(fixtureLog('django/outcomes-verbose.django-3.2.25.python-3.11.2.log')),
  );
  assert.equal(py311['test_check_command (shop.tests.CommandTests.test_check_command)'], 'PASSED');
  assert.equal(Object.keys(py311).length, 9);
});

test('the multi-line interleaving patterns SWE-bench knows', () => {
  const log = [
    'test_a (x.T) ... Testing against Django installed in /opt/django with up to 8 processes (0 silenced).',
    'ok',
    'test_b (x.T) ... Internal Server Error: /admin/',
    'ok',
    'test_c (x.T) ... System check identified no issues (0 silenced)',
    'ok',
    'Applying sites.0002_alter_domain_unique...test_no_migrations (x.T) ... ok',
    '--version is equivalent to version',
  ].join('\n');
  assert.deepEqual(reportStatuses(parseDjango(log)), {
    'test_a (x.T)': 'PASSED',
    'test_b (x.T)': 'PASSED',
    'test_c (x.T)': 'PASSED',
    'test_no_migrations (x.T)': 'PASSED',
    '--version is equivalent to version': 'PASSED',
  });
});
