import { SandgymError } from '../../errors.ts';
import type { ChatTemplate, CompletionBackend, CompletionOutput } from '../../llm/index.ts';
import { TokenSampler } from '../../llm/index.ts';
import type { ChatMessage, ToolSpec, TurnTokens } from '../../llm/types.ts';

/** A completion backend that "generates" the next recorded reply: teacher forcing through the sampler. */
class ReplayBackend implements CompletionBackend {
  next: number[] = [];

  async complete(): Promise<CompletionOutput> {
    return { completionIds: this.next, logprobs: this.next.map(() => 0), finishReason: 'stop' };
  }
}

/**
 * The tokens a recorded conversation (an oracle's trajectory, an SFT transcript) is made of, turn by turn,
 * exactly as the token-level sampler would have built them: each assistant reply is fed through the same
 * TokenSampler that RL uses, so SFT and RL train on identical token layouts (same bridging between turns).
 * A reply's tokens are what the template renders for it, up to and including its end-of-turn token.
 */
export async function replayTurnTokens(
  messages: readonly ChatMessage[],
  template: ChatTemplate,
  tools?: ToolSpec[],
): Promise<TurnTokens[]> {
  const backend = new ReplayBackend();
  const sampler = new TokenSampler({
    template,
    backend,
    maxTokensPerTurn: Number.MAX_SAFE_INTEGER,
  }).session();
  const options = tools?.length ? { tools } : {};
  const history: ChatMessage[] = [];
  const turns: TurnTokens[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') {
      history.push(m);
      continue;
    }
    backend.next = replyTokens(template, history, m, options);
    const result = await sampler.sample({ messages: [...history], ...options });
    if (!result.tokens)
      throw new SandgymError('replaying a conversation: the token sampler returned no tokens');
    turns.push(result.tokens);
    history.push(result.message);
  }
  return turns;
}

/** What the template writes for one assistant message after the generation prompt, through end-of-turn. */
function replyTokens(
  template: ChatTemplate,
  history: ChatMessage[],
  reply: ChatMessage,
  options: { tools?: ToolSpec[] },
): number[] {
  const before = template.render(history, { ...options, addGenerationPrompt: true });
  const after = template.render([...history, reply], { ...options, addGenerationPrompt: false });
  if (!after.startsWith(before)) {
    throw new SandgymError(
      'replaying a conversation: the chat template does not render an assistant turn as an extension of ' +
        'the generation prompt; this template cannot be used for token-level training',
    );
  }
  const ids = template.encode(after.slice(before.length));
  const end = ids.findIndex((id) => template.eosTokenIds.includes(id));
  return end >= 0 ? ids.slice(0, end + 1) : ids;
}
