import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ASSETS_DIR } from '../src/train/reference/index.ts';
import { startServer } from '../src/train/tinker/test-support.ts';

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
  const post = async (endpoint: string, body: unknown) =>
    (await (
      await fetch(`${server.url}/api/v1/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, unknown> & { request_id: string };
  const retrieve = async (id: string) => {
    for (;;) {
      const answer = await post('retrieve_future', { request_id: id });
      if (answer.type !== 'try_again') return answer;
    }
  };
  const session = await post('create_session', { tags: [], user_metadata: {}, sdk_version: 'test' });
  const created = await post('create_model', {
    session_id: session.session_id,
    base_model: 'reference-tiny',
  });
  await retrieve(created.request_id);
  const saved = await retrieve(
    (await post('save_weights_for_sampler', { model_id: created.model_id, seq_id: 1, path: 'run' }))
      .request_id,
  );
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
    saved.path as string,
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
