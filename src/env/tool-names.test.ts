import assert from 'node:assert/strict';
import { it } from 'node:test';
import { configProblems, loadConfig } from '../config/index.ts';
import { TOOL_NAMES } from './index.ts';

it('the config accepts exactly the tools the environment has', () => {
  const c = loadConfig();
  assert.deepEqual(configProblems({ ...c, env: { ...c.env, tools: [...TOOL_NAMES] } }), []);
  assert.match(
    configProblems({ ...c, env: { ...c.env, tools: ['finish', 'teleport'] } }).join(),
    /unknown tool "teleport"/,
  );
});
