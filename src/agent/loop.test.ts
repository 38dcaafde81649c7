import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SandboxError } from '../errors.ts';
import { LlmApiError } from '../llm/llm-api-error.ts';
import type { SampleRequest, SampleResult, Sampler } from '../llm/types.ts';
import { runAgentLoop } from './loop.ts';
import { PolicySampler } from './policies/policy-sampler.ts';
import type { AgentEnv, EpisodeBudget } from './types.ts';

/** A recording stand-in for SWEEnv: the loop's logic is under test here, the real env has its own tests. */
class RecordingEnv implements AgentEnv {
  readonly instruction = 'Fix the bug.';
  readonly tools = [
    { type: 'function' as const, function: { name: 'file_editor', parameters: { type: 'object' } } },
    { type: 'function' as const, function: { name: 'finish', parameters: { type: 'object' } } },
  ];
  calls: { name: string; arguments: unknown }[] = [];
  constructor(private readonly failOn?: string) {}

  async step(call: { name: string; arguments: unknown }) {
    this.calls.push(call);
    if (call.name === this.failOn) throw new SandboxError('sb1', 'sandbox died (init exited)');
    if (call.name === 'finish') return { observation: 'Submitted.', done: true };
    if (call.name !== 'file_editor') return { observation: `Unknown tool "${call.name}".`, done: false };
    return { observation: 'ok', done: false };
  }
}

const budget: EpisodeBudget = {
  maxSteps: 8,
  maxTokensPerTurn: 512,
  maxResponseTokens: 100_000,
  timeoutMs: 60_000,
};
const plan = [
  { name: 'file_editor', arguments: { command: 'view', path: '/testbed' } },
  {
    name: 'file_editor',
    arguments: { command: 'str_replace', path: '/testbed/a.py', old_str: 'a', new_str: 'b' },
  },
  { name: 'finish', arguments: { command: 'submit' } },
];

describe('runAgentLoop', () => {
  for (const format of ['function_calling', 'xml'] as const) {
    it(`runs a plan to submission (${format})`, async () => {
      const env = new RecordingEnv();
      const r = await runAgentLoop({
        env,
        sampler: new PolicySampler(plan, format),
        systemPrompt: 'sys',
        budget,
        toolCallFormat: format,
      });
      assert.equal(r.termination, 'submitted');
      assert.equal(r.turns.length, 3);
      assert.deepEqual(
        env.calls,
        plan.map((c) => ({ name: c.name, arguments: c.arguments })),
      );
      assert.equal(r.messages[0]!.role, 'system');
      assert.equal(r.messages[1]!.content, 'Fix the bug.');
      const answers = r.messages
        .filter((m) => m.role === (format === 'xml' ? 'user' : 'tool'))
        .slice(format === 'xml' ? 1 : 0);
      assert.deepEqual(
        answers.map((m) => m.content),
        ['ok', 'ok', 'Submitted.'],
      );
    });
  }

  it('answers malformed output with corrective observations and ends at max_steps', async () => {
    const env = new RecordingEnv();
    const r = await runAgentLoop({
      env,
      sampler: new PolicySampler('malformed', 'function_calling'),
      systemPrompt: 's',
      budget,
      toolCallFormat: 'function_calling',
    });
    assert.equal(r.termination, 'max_steps');
    assert.equal(r.turns.length, 8);
    const observations = r.messages
      .slice(2)
      .filter((m) => m.role !== 'assistant')
      .map((m) => m.content);
    assert.match(observations[0]!, /No tool call found/);
    assert.match(observations[1]!, /could not be read/);
    assert.match(observations[2]!, /not valid JSON/);
    assert.match(observations[3]!, /Unknown tool "teleport"/);
    assert.match(observations[4]!, /<tool_call> has no "name"/);
  });

  it('ends as error when the sandbox dies, keeping what happened', async () => {
    const env = new RecordingEnv('finish');
    const r = await runAgentLoop({
      env,
      sampler: new PolicySampler(plan, 'function_calling'),
      systemPrompt: 's',
      budget,
      toolCallFormat: 'function_calling',
    });
    assert.equal(r.termination, 'error');
    assert.match(r.detail!, /sandbox died/);
  });

  it('ends as error when the LLM server fails', async () => {
    const failing: Sampler = {
      sample: async () => {
        throw new LlmApiError('POST /v1/chat/completions: 503 Service Unavailable after 5 retries', {
          kind: 'http',
          url: 'http://127.0.0.1:8000/v1/chat/completions',
          status: 503,
        });
      },
      session: () => failing,
    };
    const r = await runAgentLoop({
      env: new RecordingEnv(),
      sampler: failing,
      systemPrompt: 's',
      budget,
      toolCallFormat: 'function_calling',
    });
    assert.equal(r.termination, 'error');
    assert.match(r.detail!, /503/);
  });

  it('lets a bug in a tool or the sampler propagate with its stack instead of masking it', async () => {
    const buggyEnv = new RecordingEnv();
    buggyEnv.step = async () => {
      const tool = undefined as unknown as { run: () => void };
      tool.run();
      return { observation: '', done: false };
    };
    await assert.rejects(
      runAgentLoop({
        env: buggyEnv,
        sampler: new PolicySampler(plan, 'function_calling'),
        systemPrompt: 's',
        budget,
        toolCallFormat: 'function_calling',
      }),
      (e: unknown) => e instanceof TypeError && /loop\.test\.ts/.test(e.stack ?? ''),
    );
    const buggySampler: Sampler = {
      sample: async () => {
        throw new RangeError('token id out of range');
      },
      session: () => buggySampler,
    };
    await assert.rejects(
      runAgentLoop({
        env: new RecordingEnv(),
        sampler: buggySampler,
        systemPrompt: 's',
        budget,
        toolCallFormat: 'function_calling',
      }),
      RangeError,
    );
  });

  it('ends at the wall clock, aborting a hung sampler', async () => {
    const hung: Sampler = {
      sample: (req: SampleRequest) =>
        new Promise<SampleResult>((_, reject) =>
          req.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
      session: () => hung,
    };
    const r = await runAgentLoop({
      env: new RecordingEnv(),
      sampler: hung,
      systemPrompt: 's',
      budget: { ...budget, timeoutMs: 200 },
      toolCallFormat: 'function_calling',
    });
    assert.equal(r.termination, 'timeout');
  });

  it('ends at the response token budget', async () => {
    let prompt = 100;
    const growing: Sampler = {
      sample: async () => {
        prompt += 400;
        return {
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'file_editor', arguments: '{}' } }],
          },
          finishReason: 'tool_calls',
          rawFinishReason: 'tool_calls',
          usage: { promptTokens: prompt, completionTokens: 50 },
          latencyMs: 1,
        };
      },
      session: () => growing,
    };
    const r = await runAgentLoop({
      env: new RecordingEnv(),
      sampler: growing,
      systemPrompt: 's',
      budget: { ...budget, maxResponseTokens: 1000 },
      toolCallFormat: 'function_calling',
    });
    assert.equal(r.termination, 'token_budget');
    // First prompt 500 tokens; after turn k the response holds 400·(k−1) + 50: 50, 450, 850, 1250 ≥ 1000.
    assert.equal(r.turns.length, 4);
  });
});
