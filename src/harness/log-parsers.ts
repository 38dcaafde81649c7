import { ConfigError } from '../errors.ts';
import { parseDjango } from './parsers/parse-django.ts';
import { parseJest } from './parsers/parse-jest.ts';
import { parseMocha } from './parsers/parse-mocha.ts';
import {
  parseMatplotlib,
  parsePytest,
  parsePytestOptions,
  parsePytestV2,
  parseSeaborn,
} from './parsers/parse-pytest-swebench.ts';
import { parsePytestVerbose } from './parsers/parse-pytest-verbose.ts';
import { parseR2ePytest } from './parsers/parse-r2e-pytest.ts';
import { parseSympy } from './parsers/parse-sympy.ts';
import { parseUnittest } from './parsers/parse-unittest.ts';
import { parseVitest } from './parsers/parse-vitest.ts';
import type { LogParser } from './test-report.ts';

/** Log parsers by the name a task's `test.logParser` gives. */
export const LOG_PARSERS: Readonly<Record<string, LogParser>> = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  pytest_verbose: parsePytestVerbose,
  matplotlib: parseMatplotlib,
  seaborn: parseSeaborn,
  django: parseDjango,
  sympy: parseSympy,
  unittest: parseUnittest,
  jest: parseJest,
  vitest: parseVitest,
  mocha: parseMocha,
  r2e_pytest: parseR2ePytest,
};

/** SWE-bench 5 names some parsers after their repository; they are these rules. */
const ALIASES: Readonly<Record<string, string>> = {
  astroid: 'pytest',
  flask: 'pytest',
  marshmallow: 'pytest',
  pvlib: 'pytest',
  pyvista: 'pytest',
  sqlfluff: 'pytest',
  xarray: 'pytest',
  pydicom: 'pytest_options',
  requests: 'pytest_options',
  pylint: 'pytest_options',
  astropy: 'pytest_v2',
  scikit: 'pytest_v2',
  sphinx: 'pytest_v2',
};

/** The parser called `name` (SWE-bench's `parse_log_<name>` spelling accepted). */
export function getLogParser(name: string): LogParser {
  const bare = name.startsWith('parse_log_') ? name.slice('parse_log_'.length) : name;
  const parser = LOG_PARSERS[ALIASES[bare] ?? bare];
  if (!parser) {
    throw new ConfigError(
      `unknown log parser "${name}"; valid parsers: ${[...Object.keys(LOG_PARSERS), ...Object.keys(ALIASES)].join(', ')}`,
    );
  }
  return parser;
}
