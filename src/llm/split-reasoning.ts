export interface SplitReasoning {
  /** The text between `<think>` and `</think>`, without the newlines around it; undefined when none. */
  reasoning: string | undefined;
  /** The text after `</think>` (all of it when the completion has no reasoning). */
  content: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * A completion's reasoning apart from its answer, as Qwen3 writes them: `<think>\n…\n</think>\n\n`
 * then the answer. The opening tag may be in the prompt instead (templates that force thinking), so
 * `</think>` alone splits; an opened block never closed (the completion was cut off) is all reasoning.
 * Tool calls are read from `content` only: a call the model merely considered while thinking is not made.
 */
export function splitReasoning(text: string): SplitReasoning {
  const close = text.indexOf(CLOSE);
  if (close >= 0) {
    const before = text.slice(0, close);
    const open = before.indexOf(OPEN);
    const reasoning =
      open >= 0 && before.slice(0, open).trim() === '' ? before.slice(open + OPEN.length) : before;
    return {
      reasoning: trimNewlines(reasoning),
      content: text.slice(close + CLOSE.length).replace(/^\n+/, ''),
    };
  }
  if (text.trimStart().startsWith(OPEN)) {
    return { reasoning: trimNewlines(text.trimStart().slice(OPEN.length)), content: '' };
  }
  return { reasoning: undefined, content: text };
}

function trimNewlines(text: string): string {
  return text.replace(/^\n+/, '').replace(/\n+$/, '');
}
