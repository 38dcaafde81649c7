import { randomUUID } from 'node:crypto';
import { ConfigError } from '../errors.ts';
import type { ChatTemplate } from './chat-template.ts';
import type { ChatMessage, ToolSpec } from './types.ts';

export interface TurnBridgeInput {
  /** The conversation's system message, so templates that fold tools into it behave as in turn 0. */
  system?: ChatMessage;
  tools?: ToolSpec[];
  /** Messages after the sampled assistant reply (tool results, user turns…), rendered as context. */
  newMessages: ChatMessage[];
  /** Last id of the sampled completion; when it is an end-of-turn token the template's own is skipped. */
  lastCompletionId: number | undefined;
}

/**
 * The ids that follow a sampled completion up to the next generation: the rest of the assistant turn
 * as the template closes it (`<|im_end|>\n` in ChatML, minus the end-of-turn token the model already
 * produced), the new messages, and the header of the next assistant turn.
 *
 * The template renders a stand-in conversation whose assistant message is a unique marker; everything
 * after the marker is the bridge. Nothing before it is used, so templates that rewrite earlier turns
 * (Qwen3 dropping past reasoning) cannot shift the history: previous prompt + previous completion +
 * bridge is the next prompt, extending the last one by construction.
 */
export function turnBridgeIds(template: ChatTemplate, input: TurnBridgeInput): number[] {
  const marker = `SANDGYM-TURN-${randomUUID()}`;
  const standIn: ChatMessage[] = [
    ...(input.system ? [input.system] : []),
    { role: 'user', content: '.' },
    { role: 'assistant', content: marker },
    ...input.newMessages,
  ];
  const text = template.render(standIn, { tools: input.tools, addGenerationPrompt: true });
  const at = text.indexOf(marker);
  if (at < 0) {
    throw new ConfigError(
      `${template.source}: the chat template does not write assistant content as given, so turns cannot be continued token by token; use the chat sampler instead`,
    );
  }
  let after = text.slice(at + marker.length);
  const last = input.lastCompletionId;
  if (last !== undefined && template.eosTokenIds.includes(last)) {
    const eosText = template.decode([last], { keepSpecialTokens: true });
    if (after.startsWith(eosText)) after = after.slice(eosText.length);
  }
  return template.encode(after);
}
