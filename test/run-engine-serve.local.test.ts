import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ASSETS_DIR } from '../src/train/reference/index.ts';
import { startServer, tinySamplerWeights } from '../src/train/tinker/test-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';
const CLI = join(import.meta.dirname, '..', 'bin', 'sandgym.js');

/**
 * `sandgym run` against `engine serve`'s OpenAI endpoint, as against vLLM: the reference model (untrained,
 * so it resolves nothing) plays micro tasks token by token through /v1/completions.
 */
test("sandgym run samples a reference-engine model through engine serve's /v1/completions", {
  skip,
  timeout: 300_000,
}, async (t) => {
  const { server } = await startServer(t);
  const modelPath = await tinySamplerWeights(server.url, 'run');
  const out = mkdtempSync(join(tmpdir(), 'sg-run-engine-'));
  const args = [
    CLI,
    'run',
    '-d',
    'bundled:micro',
    '--limit',
    '2',
    '--base-url',
    `${server.url}/v1`,
    '--model',
    modelPath,
    '--tokenizer',
    ASSETS_DIR,
    '--max-steps',
    '2',
    'agent.max_tokens_per_turn=24',
    'agent.prompt=micro',
    'agent.tool_call_format=xml',
    'env.tools=[file_editor,finish]',
    '-o',
    out,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, stderr);
  const trajectories = readFileSync(join(out, 'trajectories.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(trajectories.length, 2);
  for (const trajectory of trajectories) {
    assert.notEqual(trajectory.termination, 'error', JSON.stringify(trajectory).slice(0, 500));
    assert.ok(trajectory.turns[0].tokens.completionIds.length > 0, 'token ids were kept');
    assert.equal(
      trajectory.turns[0].tokens.completionLogprobs.length,
      trajectory.turns[0].tokens.completionIds.length,
    );
  }
});
