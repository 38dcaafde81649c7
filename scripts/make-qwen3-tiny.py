"""Tiny random Hugging Face checkpoints and transformers' logits for them.

Writes src/llm/fixtures/hf-tiny/<name>/{config.json, model.safetensors, logits.json} for a
Qwen3-architecture model (q/k RMSNorm, grouped-query attention, SwiGLU, RoPE; tied embeddings) and a
Llama-architecture one (no q/k norm, untied head, bf16 weights). src/llm/hf-causal-lm.test.ts compares
sandgym's forward pass with the logits transformers computed here.

Run once after changing a model (CI only reads the files):
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch transformers safetensors
    /tmp/venv/bin/python scripts/make-qwen3-tiny.py
"""

import json
import pathlib

import torch
import transformers
from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

OUT = pathlib.Path(__file__).resolve().parent.parent / "src" / "llm" / "fixtures" / "hf-tiny"

COMMON = dict(
    vocab_size=384,
    hidden_size=64,
    intermediate_size=160,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=256,
    rms_norm_eps=1e-6,
    rope_theta=10000.0,
)

MODELS = {
    "qwen3": (Qwen3ForCausalLM, Qwen3Config(**COMMON, head_dim=24, tie_word_embeddings=True), torch.float32),
    "llama": (LlamaForCausalLM, LlamaConfig(**COMMON, tie_word_embeddings=False), torch.bfloat16),
}

PROMPT = [1, 17, 300, 5, 42, 42, 383, 0, 250, 99, 7, 128]


def main():
    for name, (cls, config, dtype) in MODELS.items():
        torch.manual_seed(0)
        model = cls(config).eval()
        # Random init puts norms at 1 and biases at 0; jitter every weight so each one matters.
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn_like(p) * 0.05)
        model = model.to(dtype)
        out = OUT / name
        out.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(out, safe_serialization=True)
        (out / "generation_config.json").unlink(missing_ok=True)
        with torch.no_grad():
            logits = model.float()(torch.tensor([PROMPT])).logits[0]
        (out / "logits.json").write_text(
            json.dumps(
                {
                    "made_by": "scripts/make-qwen3-tiny.py",
                    "transformers": transformers.__version__,
                    "torch": torch.__version__,
                    "prompt": PROMPT,
                    "logits": [[round(x, 6) for x in row.tolist()] for row in logits],
                }
            )
            + "\n"
        )
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
