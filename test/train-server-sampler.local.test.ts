import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CATALOGUE } from '../datasets/micro/catalogue.ts';
import { loadChatTemplate, ScriptedServer } from '../src/llm/index.ts';
import { ASSETS_DIR } from '../src/train/reference/index.ts';
import { CLI, microData } from './train-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

const call = (name: string, params: Record<string, string>) =>
  `<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>${v}</parameter>\n`)
    .join('')}</function>`;

/**
 * A vLLM-style server that reads each micro task from the prompt and fixes it on every other first turn
 * (the others replace the buggy line by itself), then finishes: groups of mixed rewards, as RL needs.
 */
function microSolver() {
  let episodes = 0;
  return (promptText: string) => {
    // Its own edit is in the prompt: the second turn.
    if (promptText.includes('<parameter=old_str>')) {
      return call('finish', { command: 'submit' });
    }
    const m = /\/testbed\/(\w+\.py):\ndef (\w+)\([^)]*\):\n {4}return (.+)/.exec(promptText);
    if (!m) return 'I cannot see the task.';
    const [, file, name, buggy] = m;
    const fix = episodes++ % 2 === 0 ? CATALOGUE.find((f) => f.name === name)!.body : buggy!;
    return call('file_editor', {
      command: 'str_replace',
      path: `/testbed/${file}`,
      old_str: `    return ${buggy}\n`,
      new_str: `    return ${fix}\n`,
    });
  };
}

describe('sandgym train with llm.backend=tokens: RL on episodes a vLLM-style server samples', {
  skip,
  timeout: 600_000,
}, () => {
  it('trains the engine on the token ids and logprobs the server returned', async () => {
    const solve = microSolver();
    const server = await ScriptedServer.start({
      tokenizer: await loadChatTemplate(ASSETS_DIR),
      policy: (request) => ({
        content: solve(request.endpoint === 'completion' ? (request.promptText ?? '') : ''),
      }),
    });
    try {
      const runDir = await mkdtemp(join(tmpdir(), 'sg-train-server-'));
      const data = await microData(4, 0);
      const child = spawn(
        process.execPath,
        [
          CLI,
          'train',
          'configs/micro.yaml',
          '-o',
          runDir,
          `data.train_files=[${join(data, 'train.jsonl')}]`,
          'data.val_files=[]',
          'data.train_batch_size=2',
          'rollout.n=4',
          'engine.reference.tokenizer=byte',
          'engine.reference.n_layers=1',
          'engine.reference.d_model=32',
          'engine.reference.n_heads=2',
          // Byte tokens: a tool call is ~200 of them.
          'engine.reference.context=2048',
          'agent.max_tokens_per_turn=400',
          'data.max_response_length=1536',
          'llm.backend=tokens',
          `llm.base_url=${server.baseUrl}`,
          'llm.model=scripted',
          `llm.tokenizer=${ASSETS_DIR}`,
          'trainer.total_training_steps=2',
        ],
        { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let log = '';
      child.stderr.on('data', (b: Buffer) => {
        log += b.toString();
      });
      const code = await new Promise((r) => child.on('exit', r));
      assert.equal(code, 0, log);
      const steps = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>);
      assert.equal(steps.length, 2);
      for (const s of steps) {
        assert.equal(s['rollout/trained'], 8, 'every episode has the server’s token ids');
        assert.equal(s['reward/mean'], 0.5, 'half the episodes fixed their task');
        assert.ok(s['advantage/nonzero_fraction']! > 0);
        // The server's logprobs are not the engine's: the update is off-policy, and the ratio shows it.
        assert.ok(Math.abs(s['actor/ratio_mean']! - 1) > 1e-3, `ratio ${s['actor/ratio_mean']}`);
        assert.ok(s['actor/grad_norm']! > 0);
      }
      assert.ok(server.requests.some((r) => r.endpoint === 'completion'));
    } finally {
      await server.close();
    }
  });
});
