import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../errors.ts';
import { getLogParser, LOG_PARSERS } from './log-parsers.ts';

test("parsers by sandgym's names, SWE-bench's function names and its per-repository aliases", () => {
  assert.equal(getLogParser('pytest'), LOG_PARSERS.pytest);
  assert.equal(getLogParser('parse_log_django'), LOG_PARSERS.django);
  assert.equal(getLogParser('parse_log_astropy'), LOG_PARSERS.pytest_v2);
  assert.equal(getLogParser('requests'), LOG_PARSERS.pytest_options);
});

test('an unknown parser is a ConfigError listing the valid names', () => {
  assert.throws(
    () => getLogParser('parse_log_karma'),
    (e: unknown) =>
      e instanceof ConfigError &&
      /unknown log parser "parse_log_karma"; valid parsers: pytest, /.test(e.message),
  );
});
