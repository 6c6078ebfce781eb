#!/usr/bin/env python3
"""Decoders for generation workloads: LLaMA-style LlamaForCausalLM models
wrapped as transformers exports them for generation
(TorchExportableModuleWithStaticCache: inputs input_ids [batch, 1] and
cache_position [1], a static key/value cache of max_cache_len as buffers).
Weights come from a fixed seed, so the GPU benchmark rebuilds the module
that was exported here and binds its weights to the tcc artifact by name.

  python3 scripts/decode_models.py --export DIR [--only NAME...]   # DIR/<name>/model.pt2

scripts/gpu_model_benchmark.py --generate times them.
"""
import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from fixture_paths import relative_traces  # noqa: E402

# name: (hidden, layers, heads, kv heads, intermediate, vocab, batch, cache length)
DECODERS = {
    # issue 37's LLaMA-style 1024 hidden / 8 layers / GQA 16:4 / vocab 32000
    "llama_h1024_decode_b1": (1024, 8, 16, 4, 2816, 32000, 1, 2048),
    "llama_h1024_decode_b8": (1024, 8, 16, 4, 2816, 32000, 8, 2048),
    # and a ~1B one (2048 hidden, 16 layers, GQA 32:8)
    "llama_1b_decode_b1": (2048, 16, 32, 8, 5632, 32000, 1, 2048),
    "llama_1b_decode_b8": (2048, 16, 32, 8, 5632, 32000, 8, 2048),
}


def build_decoder(name, dtype=torch.bfloat16, device="cpu"):
    """The wrapped decoder (eval, `dtype`, its cache on `device`) from the
    name's seed, and example inputs (one token at position 0)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    hidden, layers, heads, kv, inter, vocab, batch, cache = DECODERS[name]
    cfg = LlamaConfig(hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                      num_attention_heads=heads, num_key_value_heads=kv, vocab_size=vocab,
                      max_position_embeddings=cache, attn_implementation="sdpa")
    torch.manual_seed(1000 + sorted(DECODERS).index(name))
    model = LlamaForCausalLM(cfg).eval().to(dtype).to(device)
    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": batch, "max_cache_len": cache,
                                            "device": device}
    wrapper = TorchExportableModuleWithStaticCache(model).eval()
    ids = torch.ones((batch, 1), dtype=torch.long, device=device)
    position = torch.zeros(1, dtype=torch.long, device=device)
    return wrapper, (ids, position)


def weight_bytes(module):
    """Bytes of the parameters (what one decode step reads at least)."""
    return sum(p.numel() * p.element_size() for p in module.parameters())


def cache_bytes(name, dtype=torch.bfloat16):
    """Bytes of the key/value cache (a static-cache step's attention reads it all)."""
    hidden, layers, heads, kv, _, _, batch, cache = DECODERS[name]
    return 2 * layers * batch * kv * cache * (hidden // heads) * torch.finfo(dtype).bits // 8


def export(outdir, only=None):
    for name in DECODERS:
        if only and name not in only:
            continue
        wrapper, (ids, position) = build_decoder(name)
        with torch.no_grad():
            ep = torch.export.export(wrapper, (), {"input_ids": ids, "cache_position": position})
        d = os.path.join(outdir, name)
        os.makedirs(d, exist_ok=True)
        torch.export.save(relative_traces(ep), os.path.join(d, "model.pt2"))
        print("exported", name, flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", metavar="DIR", required=True)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    export(a.export, a.only)
