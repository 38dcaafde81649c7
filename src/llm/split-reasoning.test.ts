import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitReasoning } from './split-reasoning.ts';

describe('splitReasoning', () => {
  it('splits Qwen3 thinking from the answer, without the newlines the template adds', () => {
    assert.deepEqual(
      splitReasoning('<think>\nPlan.\nStep two.\n</think>\n\nAnswer\n<tool_call>x</tool_call>'),
      {
        reasoning: 'Plan.\nStep two.',
        content: 'Answer\n<tool_call>x</tool_call>',
      },
    );
  });

  it('gives empty reasoning for the empty block of enable_thinking=false', () => {
    assert.deepEqual(splitReasoning('<think>\n\n</think>\n\nHi'), { reasoning: '', content: 'Hi' });
  });

  it('splits at </think> alone when the prompt opened the block', () => {
    assert.deepEqual(splitReasoning('Plan.\n</think>\n\nHi'), { reasoning: 'Plan.', content: 'Hi' });
  });

  it('takes an unclosed block (a cut-off completion) as all reasoning', () => {
    assert.deepEqual(splitReasoning('<think>\nStill thinking <tool_call>'), {
      reasoning: 'Still thinking <tool_call>',
      content: '',
    });
  });

  it('leaves text without reasoning, and tags in the middle of an answer, as content', () => {
    assert.deepEqual(splitReasoning('Plain answer'), { reasoning: undefined, content: 'Plain answer' });
    assert.deepEqual(splitReasoning('Use a <think> tag'), {
      reasoning: undefined,
      content: 'Use a <think> tag',
    });
  });
});
