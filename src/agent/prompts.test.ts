import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import type { ToolSpec } from '../llm/types.ts';
import { loadPromptSet, renderSystemPrompt } from './prompts.ts';

const tools: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'file_editor',
      description: 'View and edit files.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', enum: ['view', 'create'], description: 'What to do.' },
          path: { type: 'string', description: 'Absolute path.' },
        },
        required: ['command', 'path'],
      },
    },
  },
];

describe('prompts', () => {
  it('leaves tools to the server with function calling', () => {
    const p = renderSystemPrompt(loadPromptSet('swe'), 'function_calling', tools);
    assert.ok(!p.includes('{{tools}}'));
    assert.ok(!p.includes('<function='));
  });

  it('teaches the XML syntax and lists tools with their parameters', () => {
    const p = renderSystemPrompt(loadPromptSet('swe'), 'xml', tools);
    assert.match(p, /<function=TOOL_NAME>/);
    assert.match(p, /- file_editor: View and edit files\./);
    assert.match(p, /command \(string, required\): What to do\. \(one of: view, create\)/);
  });

  it('reads a prompt set from YAML and rejects unknown names', () => {
    const f = join(mkdtempSync(join(tmpdir(), 'sg-prompt-')), 'p.yaml');
    writeFileSync(f, 'system: |\n  Be brief.\n  {{tools}}\n');
    assert.equal(renderSystemPrompt(loadPromptSet(f), 'function_calling', tools), 'Be brief.');
    assert.throws(
      () => loadPromptSet('nope'),
      (e: unknown) => isConfigError(e) && /swe, debug/.test(e.message),
    );
  });
});
