import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseToolCalls } from './parse-tool-calls.ts';
import type { ToolSpec } from './types.ts';

const ids = () => {
  let n = 0;
  return () => `call_${n++}`;
};

const editor: ToolSpec = {
  type: 'function',
  function: {
    name: 'file_editor',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string' },
        path: { type: 'string' },
        view_range: { type: 'array' },
        insert_line: { type: 'integer' },
        dry_run: { type: 'boolean' },
      },
    },
  },
};

describe('parseToolCalls', () => {
  it('reads Hermes JSON calls and keeps the text around them', () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "execute_bash", "arguments": {"cmd": "ls -la"}}\n</tool_call>';
    const parsed = parseToolCalls(text, { newId: ids() });
    assert.equal(parsed.content, 'Let me look.');
    assert.deepEqual(parsed.toolCalls, [
      { id: 'call_0', type: 'function', function: { name: 'execute_bash', arguments: '{"cmd":"ls -la"}' } },
    ]);
    assert.deepEqual(parsed.errors, []);
  });

  it('reads several calls, string-encoded arguments and the "parameters" spelling', () => {
    const text =
      '<tool_call>{"name": "a", "arguments": "{\\"x\\": 1}"}</tool_call>\n<tool_call>{"name": "b", "parameters": {"y": 2}}</tool_call>';
    const parsed = parseToolCalls(text, { newId: ids() });
    assert.deepEqual(
      parsed.toolCalls.map((c) => [c.function.name, c.function.arguments]),
      [
        ['a', '{"x":1}'],
        ['b', '{"y":2}'],
      ],
    );
    assert.equal(parsed.content, '');
  });

  it('reads bare XML calls, converting values to the declared types', () => {
    const text = [
      'I will edit.',
      '<function=file_editor>',
      '<parameter=command>\ninsert\n</parameter>',
      '<parameter=path>/repo/a.py</parameter>',
      '<parameter=insert_line>\n12\n</parameter>',
      '<parameter=view_range>[1, 5]</parameter>',
      '<parameter=dry_run>false</parameter>',
      '<parameter=new_str>\n    return x\n\n</parameter>',
      '</function>',
    ].join('\n');
    const parsed = parseToolCalls(text, { tools: [editor], newId: ids() });
    assert.equal(parsed.content, 'I will edit.');
    assert.deepEqual(JSON.parse(parsed.toolCalls[0]!.function.arguments), {
      command: 'insert',
      path: '/repo/a.py',
      insert_line: 12,
      view_range: [1, 5],
      dry_run: false,
      new_str: '    return x\n',
    });
  });

  it('reads XML calls wrapped in <tool_call> (Qwen3-Coder)', () => {
    const text =
      '<tool_call>\n<function=finish>\n<parameter=result>\ndone\n</parameter>\n</function>\n</tool_call>';
    const parsed = parseToolCalls(text, { newId: ids() });
    assert.deepEqual(parsed.toolCalls[0]?.function, { name: 'finish', arguments: '{"result":"done"}' });
  });

  it('keeps XML values as text when they do not fit the declared type', () => {
    const text = '<function=file_editor><parameter=insert_line>twelve</parameter></function>';
    const parsed = parseToolCalls(text, { tools: [editor], newId: ids() });
    assert.equal(parsed.toolCalls[0]?.function.arguments, '{"insert_line":"twelve"}');
  });

  it('reports malformed and unclosed calls instead of throwing', () => {
    const cases: [string, RegExp][] = [
      ['<tool_call>{"name": "a", "arguments": {oops}}</tool_call>', /not valid JSON/],
      ['<tool_call>{"arguments": {}}</tool_call>', /no "name"/],
      ['<tool_call>{"name": "a", "arguments": [1]}</tool_call>', /not a JSON object/],
      ['<tool_call>{"name": "a", "arguments": "nope"}</tool_call>', /a string that is not JSON/],
      ['<tool_call>run ls</tool_call>', /neither JSON nor <function=/],
      ['<tool_call>{"name": "a", "arguments": {}}', /not closed with <\/tool_call>.*cut off/],
      ['<function=a><parameter=x>1', /<function=a> is not closed/],
      ['<function=a><parameter=x>1</function>', /<parameter=x> of the a call is not closed/],
    ];
    for (const [text, error] of cases) {
      const parsed = parseToolCalls(text);
      assert.deepEqual(parsed.toolCalls, [], text);
      assert.equal(parsed.errors.length, 1, text);
      assert.match(parsed.errors[0]!, error, text);
    }
  });

  it('leaves plain text alone', () => {
    const parsed = parseToolCalls('  The bug is in parse().  ');
    assert.deepEqual(parsed, { content: 'The bug is in parse().', toolCalls: [], errors: [] });
  });

  it('gives every call its own id by default', () => {
    const parsed = parseToolCalls('<function=a></function><function=b></function>');
    const [a, b] = parsed.toolCalls;
    assert.match(a!.id, /^call_[0-9a-f]{8}$/);
    assert.notEqual(a!.id, b!.id);
  });
});
