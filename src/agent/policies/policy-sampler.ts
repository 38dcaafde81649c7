import type { AssistantMessage, SampleRequest, SampleResult, Sampler } from '../../llm/types.ts';
import type { PlannedCall } from './oracle-plan.ts';

/** Built-in policies for dry runs: they need no model and prove the environment, tools and grader. */
export type PolicyName = 'oracle' | 'noop' | 'malformed';
export const POLICY_NAMES: readonly PolicyName[] = ['oracle', 'noop', 'malformed'];

/** Replies a malformed policy cycles through: every way a model's tool call goes wrong. */
const MALFORMED_REPLIES: AssistantMessage[] = [
  { role: 'assistant', content: 'I think the bug is in the parser. Let me look.' },
  { role: 'assistant', content: '<function=file_editor>\n<parameter=command>view</parameter>\n' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      {
        id: 'call_bad_json',
        type: 'function',
        function: { name: 'file_editor', arguments: '{"command": "view", ' },
      },
    ],
  },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'call_unknown', type: 'function', function: { name: 'teleport', arguments: '{}' } }],
  },
  { role: 'assistant', content: '<tool_call>{"arguments": 3}</tool_call>' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'call_bad_args', type: 'function', function: { name: 'file_editor', arguments: '{"cmd": 1}' } },
    ],
  },
];

/** The reply a planned call becomes in the chosen tool-call format. */
export function renderPlannedCall(
  call: PlannedCall,
  turn: number,
  format: 'function_calling' | 'xml',
): AssistantMessage {
  if (format === 'function_calling') {
    return {
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: `call_${turn}`,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        },
      ],
    };
  }
  const params = Object.entries(call.arguments)
    .map(([k, v]) => `<parameter=${k}>${typeof v === 'string' ? v : JSON.stringify(v)}</parameter>`)
    .join('\n');
  return { role: 'assistant', content: `<function=${call.name}>\n${params}\n</function>` };
}

/** The reply of a scripted policy at a turn; a pure function of the plan and the conversation so far. */
export function scriptedReply(
  plan: readonly PlannedCall[] | 'malformed',
  messages: SampleRequest['messages'],
  format: 'function_calling' | 'xml',
): AssistantMessage {
  const turn = messages.filter((m) => m.role === 'assistant').length;
  if (plan === 'malformed') return MALFORMED_REPLIES[turn % MALFORMED_REPLIES.length]!;
  const call = plan[Math.min(turn, plan.length - 1)]!;
  return renderPlannedCall(call, turn, format);
}

/** A Sampler that plays a scripted policy in-process (the HTTP path goes through the scripted server). */
export class PolicySampler implements Sampler {
  constructor(
    private readonly plan: readonly PlannedCall[] | 'malformed',
    private readonly format: 'function_calling' | 'xml',
  ) {}

  async sample(request: SampleRequest): Promise<SampleResult> {
    const message = scriptedReply(this.plan, request.messages, this.format);
    const chars = request.messages.reduce((n, m) => n + m.content.length, 0);
    return {
      message,
      finishReason: message.tool_calls ? 'tool_calls' : 'stop',
      rawFinishReason: message.tool_calls ? 'tool_calls' : 'stop',
      // Rough token counts (4 chars a token) so budgets behave as they would with a model.
      usage: {
        promptTokens: Math.ceil(chars / 4),
        completionTokens: Math.ceil(JSON.stringify(message).length / 4),
      },
      latencyMs: 0,
    };
  }

  session(): Sampler {
    return this;
  }
}
