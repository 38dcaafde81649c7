import type { ToolSpec } from '../../llm/types.ts';
import type { Tool, ToolResult } from '../types.ts';

const SPEC: ToolSpec = {
  type: 'function',
  function: {
    name: 'finish',
    description:
      'Ends the task and submits your changes to the repository for grading. Call it once, when your fix is ' +
      'complete; nothing can be changed afterwards.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['submit'], description: 'Always "submit" (optional).' },
        result: { type: 'string', description: 'Optional: a short summary of what you changed and why.' },
      },
      required: [],
      additionalProperties: false,
    },
  },
};

/**
 * R2E-Gym's `finish` (`command: submit`, optional `result`), also answering to SWE-agent's `submit`. The
 * patch is taken from the repository afterwards, not from the call.
 */
export class Finish implements Tool {
  readonly spec = SPEC;
  readonly aliases = ['submit'] as const;

  async run(): Promise<ToolResult> {
    return { observation: 'Your changes are submitted; the episode is over.', submitted: true };
  }
}
