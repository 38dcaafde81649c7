import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolSpec } from '../llm/types.ts';
import { checkArguments, describeParameters } from './check-arguments.ts';

const SPEC: ToolSpec = {
  type: 'function',
  function: {
    name: 'demo',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['view', 'edit'] },
        path: { type: 'string' },
        line: { type: 'integer' },
        range: { type: 'array', items: { type: 'integer' } },
        force: { type: 'boolean' },
      },
      required: ['command', 'path'],
      additionalProperties: false,
    },
  },
};

function problems(raw: unknown): string[] {
  const r = checkArguments(SPEC, raw);
  assert.equal(r.ok, false, 'expected the arguments to be refused');
  return r.ok ? [] : r.problems;
}

describe('checkArguments', () => {
  it('accepts well-typed arguments as they are', () => {
    const args = { command: 'view', path: '/a', line: 3, range: [1, -1], force: true };
    assert.deepEqual(checkArguments(SPEC, args), { ok: true, args });
  });

  it('reads arguments given as JSON text, and empty text as no arguments', () => {
    assert.deepEqual(checkArguments(SPEC, '{"command": "view", "path": "/a"}'), {
      ok: true,
      args: { command: 'view', path: '/a' },
    });
    assert.deepEqual(problems(''), [
      'missing required argument "command"',
      'missing required argument "path"',
    ]);
  });

  it('takes strings that spell the wanted type, as XML-style calls send every value', () => {
    const r = checkArguments(SPEC, {
      command: 'view',
      path: '/a',
      line: ' 12 ',
      range: '[1, 10]',
      force: 'false',
    });
    assert.deepEqual(r, {
      ok: true,
      args: { command: 'view', path: '/a', line: 12, range: [1, 10], force: false },
    });
  });

  it('treats null as absent (strict function calling sends null for left-out optional parameters)', () => {
    assert.deepEqual(checkArguments(SPEC, { command: 'view', path: '/a', line: null }), {
      ok: true,
      args: { command: 'view', path: '/a' },
    });
    assert.deepEqual(problems({ command: 'view', path: null }), ['missing required argument "path"']);
  });

  it('names every problem: unknown, missing, mistyped, outside the enum', () => {
    assert.deepEqual(problems({ command: 'delete', line: 'twelve', range: [1, 'x'], extra: 1 }), [
      'argument "command" must be one of "view", "edit"',
      'argument "line" must be an integer, got the string "twelve"',
      'argument "range" item 1 must be an integer, got the string "x"',
      'unknown argument "extra"',
      'missing required argument "path"',
    ]);
    assert.deepEqual(problems({ command: 'view', path: 7 }), [
      'argument "path" must be a string, got number 7',
    ]);
    assert.deepEqual(problems({ command: 'view', path: '/a', line: 1.5 }), [
      'argument "line" must be an integer, got number 1.5',
    ]);
  });

  it('refuses text that is not a JSON object', () => {
    assert.match(problems('{"command": ')[0]!, /^arguments are not valid JSON/);
    assert.deepEqual(problems('[1, 2]'), ['arguments must be a JSON object of named parameters']);
    assert.deepEqual(problems(42), ['arguments must be a JSON object of named parameters']);
  });
});

describe('describeParameters', () => {
  it('lists each parameter with its type, whether required, and its choices', () => {
    assert.equal(
      describeParameters(SPEC),
      [
        'demo(',
        '  command (string, required, one of "view" | "edit")',
        '  path (string, required)',
        '  line (integer, optional)',
        '  range (array of integer, optional)',
        '  force (boolean, optional)',
        ')',
      ].join('\n'),
    );
  });
});
