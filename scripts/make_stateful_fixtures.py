#!/usr/bin/env python3
#===- scripts/make_stateful_fixtures.py - multi-call references ---------===#
#
# Reference outputs for models with state: buffers their forward writes (a
# running sum, a key/value cache), so that each call's answer depends on the
# calls before it. Run with PyTorch 2.11 (and transformers 5.17 for the
# transformers case); it never uses tcc:
#
#   python3 scripts/make_stateful_fixtures.py --out samples [--only NAME]
#
# For each model it writes samples/<name>/: model.pt2 (torch.export.save,
# exported from the model's fresh state), model.json, and steps/<k>/ for each
# call k = 000, 001, ...: input_<i>.npy and expected_<i>.npy, the outputs of
# eager PyTorch on CPU in fp32 when the calls are made in that order on one
# module. `tcc run model.so --steps samples/<name>/steps` makes the same calls
# on one instance and compares every one.
#
#===----------------------------------------------------------------------===#
import argparse
import copy
import math
import os
import shutil
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_paths import relative_traces
from make_fixtures import save_npy

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

ONLY = None


def write_model(d, ep):
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    with zipfile.ZipFile(os.path.join(d, "model.pt2")) as z:
        j = [n for n in z.namelist() if n.endswith("models/model.json")][0]
        with open(os.path.join(d, "model.json"), "wb") as f:
            f.write(z.read(j))


def write_steps(d, model, steps):
    """Runs `model` (eagerly, in order, on its own state) over `steps`, a list
    of argument tuples, and writes steps/<k>/input_<i>.npy, expected_<i>.npy.
    The inputs are saved before the call: a call may write into them. After
    the last call, each buffer's value goes to state_after/<name>.npy."""
    sd = os.path.join(d, "steps")
    shutil.rmtree(sd, ignore_errors=True)
    with torch.no_grad():
        for k, inputs in enumerate(steps):
            kd = os.path.join(sd, f"{k:03d}")
            os.makedirs(kd)
            for i, t in enumerate(inputs):
                save_npy(os.path.join(kd, f"input_{i}.npy"), t)
            out = model(*[t.clone() for t in inputs])
            if not isinstance(out, (tuple, list)):
                out = (out,)
            for i, t in enumerate(out):
                save_npy(os.path.join(kd, f"expected_{i}.npy"), t)
    ad = os.path.join(d, "state_after")
    shutil.rmtree(ad, ignore_errors=True)
    os.makedirs(ad)
    for name, t in model.named_buffers():
        save_npy(os.path.join(ad, f"{name}.npy"), t)


def write_stateful_case(out, name, model, steps, dynamic_shapes=None, core=False):
    """Exports `model` from its current state with the first step's inputs,
    then writes the eager outputs of every step (on a copy, so the export's
    example call leaves no trace). core: the core ATen form
    (run_decompositions), which lists the writes as mutation outputs instead
    of keeping in-place operators."""
    if ONLY and name != ONLY:
        return
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    model.eval()
    fresh = copy.deepcopy(model)
    with torch.no_grad():
        ep = torch.export.export(model, tuple(steps[0]), dynamic_shapes=dynamic_shapes)
        if core:
            ep = ep.run_decompositions()
    relative_traces(ep)
    write_model(d, ep)
    write_steps(d, fresh, steps)
    print(f"wrote {d} ({len(steps)} steps)")


#===----------------------------------------------------------------------===#
# A running sum
#===----------------------------------------------------------------------===#


class RunningSum(nn.Module):
    """The smallest state: a buffer each call adds its input to (add_ on the
    buffer), read after the write; a second buffer counts the calls through
    a view of it (fill_ into a slice); a third is written and never read."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))
        self.register_buffer("calls", torch.zeros(2))
        self.register_buffer("last", torch.zeros(4), persistent=False)

    def forward(self, x):
        self.total.add_(x)
        self.calls[0:1] += 1.0
        self.last.copy_(x * 3.0)
        return self.total * 2.0 + self.calls[0]


#===----------------------------------------------------------------------===#
# A hand-written decoder with a static key/value cache
#===----------------------------------------------------------------------===#


class CachedAttention(nn.Module):
    """Causal self-attention over a preallocated cache [B, H, L, D]: the
    step's keys go in with index_copy_, its values by indexed assignment
    (index_put_), at the
    positions `cache_position` names; the query attends to the cache with a
    mask of the positions written so far."""

    def __init__(self, dim, heads, batch, max_len):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        shape = (batch, heads, max_len, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def forward(self, x, cache_position, mask):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(x.shape[-1], dim=-1)
        q, k, v = (t.view(b, s, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        self.k_cache.index_copy_(2, cache_position, k)
        self.v_cache[:, :, cache_position] = v
        y = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, s, -1))


class CachedDecoder(nn.Module):
    """Token ids [B, S] and their positions [S] -> next-token logits [B, S, V],
    with two pre-norm layers of CachedAttention and an MLP."""

    def __init__(self, vocab=64, dim=32, heads=2, layers=2, batch=1, max_len=80):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.max_len = max_len
        self.attn = nn.ModuleList(CachedAttention(dim, heads, batch, max_len)
                                  for _ in range(layers))
        self.norm1 = nn.ModuleList(nn.LayerNorm(dim) for _ in range(layers))
        self.norm2 = nn.ModuleList(nn.LayerNorm(dim) for _ in range(layers))
        self.mlp = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(),
                                               nn.Linear(2 * dim, dim)) for _ in range(layers))
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids, cache_position):
        keys = torch.arange(self.max_len)
        mask = keys[None, :] <= cache_position[:, None]  # [S, L]: written and not after
        h = self.embed(ids)
        for attn, n1, n2, mlp in zip(self.attn, self.norm1, self.norm2, self.mlp):
            h = h + attn(n1(h), cache_position, mask)
            h = h + mlp(n2(h))
        return self.head(h)


def greedy_steps(model, prompt, steps):
    """The calls of a greedy generation: the prompt's tokens one per call,
    then each call's argmax fed back, run eagerly on `model` (a copy of a
    module; it is changed). Returns the calls' arguments and the generated
    tokens [batch, steps - prompt + 1] (the last call's argmax included)."""
    calls, generated = [], []
    with torch.no_grad():
        ids = prompt[:, :1]
        for pos in range(steps):
            position = torch.tensor([pos])
            calls.append((ids.clone(), position))
            logits = model(ids, position)
            if pos + 1 < prompt.shape[1]:
                ids = prompt[:, pos + 1:pos + 2]
            else:
                ids = logits[:, -1:].argmax(-1)
                generated.append(ids)
    return calls, torch.cat(generated, dim=1)


def write_generation(out, name, prompt, tokens):
    """<name>/generate/prompt.npy and tokens.npy: what `tcc generate
    --prompt-file ... --expect ...` must reproduce, token for token."""
    if ONLY and name != ONLY:
        return
    gd = os.path.join(out, name, "generate")
    os.makedirs(gd, exist_ok=True)
    save_npy(os.path.join(gd, "prompt.npy"), prompt)
    save_npy(os.path.join(gd, "tokens.npy"), tokens)


def write_cached_decoder_cases(out):
    for batch in (1, 8):
        name = f"kv_cache_decoder_b{batch}"
        torch.manual_seed(300 + batch)
        model = CachedDecoder(batch=batch)
        prompt = torch.randint(0, 64, (batch, 5))
        calls, tokens = greedy_steps(copy.deepcopy(model).eval(), prompt, 70)
        write_stateful_case(out, name, model, calls)
        write_generation(out, name, prompt, tokens)


#===----------------------------------------------------------------------===#
# transformers' static-cache export
#===----------------------------------------------------------------------===#


def tiny_static_cache_llama(seed):
    """LlamaForCausalLM at toy size (2 layers, GQA 4:2, vocab 128) from
    `seed`, set up for transformers' static-cache export (batch 1, 80
    positions)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=128)
    model = LlamaForCausalLM(cfg).eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": 80,
                                            "device": "cpu"}
    return model


def write_transformers_static_cache_case(out):
    """LlamaForCausalLM at toy size exported the way transformers documents
    for generation (convert_and_export_with_cache): inputs input_ids [1, 1]
    and cache_position [1]; a static key/value cache written with
    index_copy_, and a cumulative length written with copy_ and add_."""
    name = "llama_static_cache"
    if ONLY and name != ONLY:
        return
    from transformers.integrations.executorch import convert_and_export_with_cache
    model = tiny_static_cache_llama(310)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    ep = convert_and_export_with_cache(model)
    relative_traces(ep)
    write_model(d, ep)
    # The exported program as a module holds its own cache: run it call
    # after call, greedy, from a 4-token prompt (on a copy: the references
    # are made again from a fresh one).
    fresh = copy.deepcopy(ep.module())
    prompt = torch.randint(0, 128, (1, 4))
    calls, tokens = greedy_steps(copy.deepcopy(ep.module()), prompt, 70)
    write_steps(d, fresh, calls)
    write_generation(out, name, prompt, tokens)
    print(f"wrote {d} ({len(calls)} steps)")


def write_transformers_prefill_case(out):
    """The same export with a symbolic number of tokens per call (1 to 64):
    one artifact takes the whole prompt in one call (prefill) and then one
    token per call (decode). Steps: a 6-token prompt, then 40 greedy tokens."""
    name = "llama_static_cache_prefill"
    if ONLY and name != ONLY:
        return
    from transformers.integrations.executorch import convert_and_export_with_cache
    model = tiny_static_cache_llama(320)
    seq = torch.export.Dim("tokens", min=1, max=64)
    prompt = torch.randint(0, 128, (1, 6))
    ep = convert_and_export_with_cache(
        model, example_input_ids=prompt, example_cache_position=torch.arange(6),
        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    relative_traces(ep)
    write_model(d, ep)
    fresh = copy.deepcopy(ep.module())
    runner = copy.deepcopy(ep.module())
    calls, generated = [(prompt, torch.arange(6))], []
    with torch.no_grad():
        logits = runner(prompt, torch.arange(6))
        for pos in range(6, 46):
            ids = logits[:, -1:].argmax(-1)
            generated.append(ids)
            calls.append((ids, torch.tensor([pos])))
            logits = runner(ids, torch.tensor([pos]))
        generated.append(logits[:, -1:].argmax(-1))
    write_steps(d, fresh, calls)
    write_generation(out, name, prompt, torch.cat(generated, dim=1))
    print(f"wrote {d} ({len(calls)} steps)")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="samples")
    ap.add_argument("--only", help="write only the case of this name")
    args = ap.parse_args()
    global ONLY
    ONLY = args.only

    torch.manual_seed(200)
    steps = [(torch.randn(4),) for _ in range(6)]
    write_stateful_case(args.out, "running_sum", RunningSum(), steps)
    write_stateful_case(args.out, "running_sum_core", RunningSum(), steps, core=True)
    write_cached_decoder_cases(args.out)
    write_transformers_static_cache_case(args.out)
    write_transformers_prefill_case(args.out)


if __name__ == "__main__":
    main()
