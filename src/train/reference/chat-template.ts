/**
 * The reference model's chat template: ChatML (`<|im_start|>role\n…<|im_end|>\n`) with tool use in the
 * manner of Qwen's templates — tool schemas listed in the system turn inside <tools></tools>, assistant
 * calls as JSON inside <tool_call></tool_call>, and tool results sent back in a user turn inside
 * <tool_response></tool_response> (consecutive results share one turn). Tool-call arguments may be an
 * object (Hugging Face style) or a JSON string (OpenAI style). Written to assets/tokenizer_config.json.
 *
 * Loaders render chat templates with trim_blocks (a newline right after a tag is dropped), so the
 * newlines that must follow a tag are written as {{ '\n' }} (a jinja string holding a newline).
 */
export const CHAT_TEMPLATE = [
  '{% if tools %}',
  '<|im_start|>system\n',
  "{% if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}",
  'You can call the tools described by these JSON schemas:\n<tools>\n',
  '{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}',
  '</tools>\nTo call a tool, answer with one JSON object per call, each inside its own tags:\n',
  '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments as JSON>}}\n</tool_call><|im_end|>\n',
  "{% elif messages[0].role == 'system' %}",
  '<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n',
  '{% endif %}',
  '{% for message in messages %}',
  "{% if message.role == 'system' and loop.first %}",
  "{% elif message.role == 'user' or message.role == 'system' %}",
  '<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n',
  "{% elif message.role == 'assistant' %}",
  '<|im_start|>assistant\n{% if message.content %}{{ message.content }}{% endif %}',
  '{% for call in (message.tool_calls or []) %}',
  '{% if call.function is defined %}{% set call = call.function %}{% endif %}',
  "{% if message.content or not loop.first %}{{ '\\n' }}{% endif %}",
  '<tool_call>\n{"name": "{{ call.name }}", "arguments": ',
  '{% if call.arguments is string %}{{ call.arguments }}{% else %}{{ call.arguments | tojson }}{% endif %}',
  '}\n</tool_call>',
  '{% endfor %}',
  '<|im_end|>\n',
  "{% elif message.role == 'tool' %}",
  "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}",
  "{{ '\\n' }}<tool_response>\n{{ message.content }}\n</tool_response>",
  "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}",
  '{% endif %}',
  '{% endfor %}',
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}',
].join('');

/** tokenizer_config.json for Hugging Face loaders: the specials and the chat template. */
export function tokenizerConfigJson(): Record<string, unknown> {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: 2048,
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|pad|>',
    unk_token: null,
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    clean_up_tokenization_spaces: false,
    chat_template: CHAT_TEMPLATE,
  };
}
