import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configSchema } from '../config/index.ts';
import { isConfigError } from '../errors.ts';
import { createToolSet, TOOL_NAMES } from './tool-set.ts';

describe('createToolSet', () => {
  it('makes the default tool set with OpenAI function schemas, in order', () => {
    const names = configSchema.parse({}).env.tools;
    const tools = createToolSet(names);
    assert.deepEqual(
      tools.map((t) => t.spec.function.name),
      names,
    );
    for (const t of tools) {
      assert.equal(t.spec.type, 'function');
      assert.equal(t.spec.function.parameters.type, 'object');
      assert.equal(t.spec.function.parameters.additionalProperties, false);
      assert.ok((t.spec.function.description ?? '').length > 20, `${t.spec.function.name} has a description`);
    }
  });

  it("makes SWE-PDB's set (pdb on, bash off) and fresh instances each time", () => {
    const a = createToolSet(['file_editor', 'search', 'pdb', 'finish']);
    const b = createToolSet(['file_editor', 'search', 'pdb', 'finish']);
    assert.deepEqual(
      a.map((t) => t.spec.function.name),
      ['file_editor', 'search', 'pdb', 'finish'],
    );
    assert.notEqual(a[0], b[0], 'undo history and pdb sessions belong to one episode');
  });

  it('fails on an unknown or repeated name, listing the valid ones', () => {
    assert.throws(
      () => createToolSet(['file_editor', 'bash']),
      (e: unknown) =>
        isConfigError(e) && e.message.includes('"bash"') && e.message.includes(TOOL_NAMES.join(', ')),
    );
    assert.throws(
      () => createToolSet(['finish', 'finish']),
      (e: unknown) => isConfigError(e) && /twice/.test(e.message),
    );
  });
});
