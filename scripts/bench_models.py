#!/usr/bin/env python3
"""The GPU benchmarks' workloads, built the same way wherever torch runs.

    python3 scripts/bench_models.py --export DIR   # DIR/<name>/model.json (+ .pt2 when small)
    python3 scripts/bench_models.py --export-models DIR [--only NAME...]
        # DIR/<model>_<fp32|bf16>/model.pt2: the real models of
        # scripts/gpu_model_benchmark.py, as fp32 and as bf16 modules

Weights come from a fixed seed, so the benchmarks (scripts/gpu_benchmark.py,
scripts/gpu_model_benchmark.py) rebuild the same modules on the GPU machine
and bind their state_dict to the tcc model by name; large weights never travel.
"""
import argparse
import json
import os
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_paths import relative_traces


class Foo(nn.Module):
    def forward(self, x, y):
        return torch.sin(x) + torch.cos(y)


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(100, 10)

    def forward(self, x):
        return F.relu(self.lin(x))


class MLP(nn.Module):
    """4 x (Linear 4096 -> 4096 + GELU)."""

    def __init__(self, width=4096, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


class Softmax(nn.Module):
    """Row softmax: a max and a sum reduction per row, then pointwise."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def workloads():
    """name -> (module factory, input factory), each seeded."""
    def seeded(fn, seed):
        def make():
            torch.manual_seed(seed)
            return fn()
        return make
    return {
        "foo": (seeded(Foo, 1), seeded(lambda: (torch.randn(10, 10), torch.randn(10, 10)), 2)),
        "mymodule": (seeded(MyModule, 3), seeded(lambda: (torch.randn(10, 100),), 4)),
        "pointwise_64m": (seeded(Foo, 5),
                          seeded(lambda: (torch.randn(8192, 8192), torch.randn(8192, 8192)), 6)),
        "mlp_4x4096_b256": (seeded(MLP, 7), seeded(lambda: (torch.randn(256, 4096),), 8)),
        "softmax_4096x4096": (seeded(Softmax, 9), seeded(lambda: (torch.randn(4096, 4096),), 10)),
        "layer_norm_4096x4096": (seeded(lambda: nn.LayerNorm(4096), 11),
                                 seeded(lambda: (torch.randn(4096, 4096),), 12)),
    }


# --- Real models (scripts/gpu_model_benchmark.py) -----------------------------

class FirstOutput(nn.Module):
    """A transformers model whose forward returns one tensor field."""

    def __init__(self, model, field, **call_kwargs):
        super().__init__()
        self.model, self.field, self.call_kwargs = model, field, call_kwargs

    def forward(self, input_ids):
        return getattr(self.model(input_ids, **self.call_kwargs), self.field)


def _bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(attn_implementation="sdpa")
    return FirstOutput(BertModel(cfg, add_pooling_layer=False), "last_hidden_state")


def _gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    return FirstOutput(GPT2LMHeadModel(GPT2Config(attn_implementation="sdpa")), "logits",
                       use_cache=False)


def _llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                      num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
                      max_position_embeddings=2048, attn_implementation="sdpa")
    return FirstOutput(LlamaForCausalLM(cfg), "logits", use_cache=False)


def _t5_config():
    from transformers import T5Config
    # t5-small's published shape (as scripts/zoo.py).
    return T5Config(d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8,
                    vocab_size=32128, attn_implementation="sdpa")


def _t5_encoder():
    from transformers import T5EncoderModel
    return FirstOutput(T5EncoderModel(_t5_config()), "last_hidden_state")


class T5Decoder(nn.Module):
    """T5's decoder stack and LM head, given the encoder's output."""

    def __init__(self):
        super().__init__()
        from transformers import T5ForConditionalGeneration
        self.t5 = T5ForConditionalGeneration(_t5_config())

    def forward(self, decoder_input_ids, encoder_hidden_states):
        hidden = self.t5.decoder(input_ids=decoder_input_ids,
                                 encoder_hidden_states=encoder_hidden_states,
                                 use_cache=False).last_hidden_state
        return self.t5.lm_head(hidden)


def _vision(name, **kwargs):
    def make():
        import torchvision
        model = getattr(torchvision.models, name)(weights=None, **kwargs)
        with torch.no_grad():  # heads that start at 0 would make every output 0
            for p in model.parameters():
                if p.dim() >= 2 and not p.any():
                    p.normal_(0.0, 0.02)
        return model
    return make


class RecurrentOutput(nn.Module):
    """A recurrent layer stack's output sequence (not its final states)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


def _recurrent(kind):
    """issue 39's CPU measurement: 2 layers, bidirectional, input 128, hidden 256."""
    return lambda: RecurrentOutput(getattr(nn, kind)(128, 256, num_layers=2,
                                                     bidirectional=True, batch_first=True))


def _sequence(batch, steps):
    return lambda: (torch.randn(batch, steps, 128),)


def _tokens(vocab, batch, seq):
    return lambda: (torch.randint(0, vocab, (batch, seq), dtype=torch.int64),)


def _images(batch, size):
    return lambda: (torch.randn(batch, 3, size, size),)


MODEL_WORKLOADS = {
    # name: (module factory, input factory); the transformer table
    "bert_base_b8_s128": (_bert, _tokens(30522, 8, 128)),
    "gpt2_b8_s128": (_gpt2, _tokens(50257, 8, 128)),
    "vit_b16_b8": (_vision("vit_b_16"), _images(8, 224)),
    "llama_h1024_b4_s256": (_llama, _tokens(32000, 4, 256)),
    # and the convolutional networks
    "densenet121_b16_128": (_vision("densenet121"), _images(16, 128)),
    "resnet50_b32": (_vision("resnet50"), _images(32, 224)),
    "mobilenet_v2_b32": (_vision("mobilenet_v2"), _images(32, 224)),
    "efficientnet_b0_b32": (_vision("efficientnet_b0"), _images(32, 224)),
    "convnext_tiny_b16": (_vision("convnext_tiny"), _images(16, 224)),
    # the CPU path's (scripts/cpu_benchmark.py, issue 16)
    "bert_base_b1_s128": (_bert, _tokens(30522, 1, 128)),
    "resnet18_b1": (_vision("resnet18"), _images(1, 224)),
    "mobilenet_v2_b1": (_vision("mobilenet_v2"), _images(1, 224)),
    # the rest of the zoo's vision models (kernels per call, issue 10)
    "resnet18_b32": (_vision("resnet18"), _images(32, 224)),
    "regnet_y_400mf_b32": (_vision("regnet_y_400mf"), _images(32, 224)),
    "swin_t_b16": (_vision("swin_t"), _images(16, 224)),
    # T5-small, the zoo's encoder-decoder (kernels per call, issue 10)
    "t5_small_encoder_b8_s128": (_t5_encoder, _tokens(32128, 8, 128)),
    "t5_small_decoder_b8_s128": (T5Decoder, lambda: (
        torch.randint(0, 32128, (8, 128), dtype=torch.int64), torch.randn(8, 128, 512))),
    # recurrent layers on the CPU path (scripts/cpu_benchmark.py, issue 39)
    "lstm_2x256_b8_t100": (_recurrent("LSTM"), _sequence(8, 100)),
    "gru_2x256_b8_t100": (_recurrent("GRU"), _sequence(8, 100)),
    "lstm_2x256_b1_t100": (_recurrent("LSTM"), _sequence(1, 100)),
}
# Seeds follow this order, so that adding a workload changes no other's weights.
SEED_ORDER = ["bert_base_b8_s128", "densenet121_b16_128", "gpt2_b8_s128",
              "llama_h1024_b4_s256", "mobilenet_v2_b32", "resnet50_b32", "vit_b16_b8",
              "efficientnet_b0_b32", "convnext_tiny_b16", "bert_base_b1_s128", "resnet18_b1",
              "mobilenet_v2_b1", "resnet18_b32", "regnet_y_400mf_b32", "swin_t_b16",
              "t5_small_encoder_b8_s128", "t5_small_decoder_b8_s128", "lstm_2x256_b8_t100",
              "gru_2x256_b8_t100", "lstm_2x256_b1_t100"]
MODEL_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def build_model(name, dtype_name):
    """The workload's module (eval, in `dtype_name`) and inputs, from its seed."""
    make_module, make_inputs = MODEL_WORKLOADS[name]
    seed = SEED_ORDER.index(name)
    torch.manual_seed(100 + seed)
    module = make_module().eval().to(MODEL_DTYPES[dtype_name])
    torch.manual_seed(200 + seed)
    inputs = tuple(t.to(MODEL_DTYPES[dtype_name]) if t.is_floating_point() else t
                   for t in make_inputs())
    return module, inputs


def export_models(outdir, only=None, dtypes=("fp32", "bf16")):
    for name in MODEL_WORKLOADS:
        if only and name not in only:
            continue
        for dtype_name in dtypes:
            module, inputs = build_model(name, dtype_name)
            d = os.path.join(outdir, f"{name}_{dtype_name}")
            os.makedirs(d, exist_ok=True)
            with torch.no_grad():
                ep = torch.export.export(module, inputs)
            torch.export.save(relative_traces(ep), os.path.join(d, "model.pt2"))
            print("exported", name, dtype_name, flush=True)


def batch_dynamic_shapes(inputs):
    """Every input's dim 0 as one symbolic batch (up to twice the example's,
    at least 1024), for `tcc compile --specialize` at the example's batch."""
    batch = torch.export.Dim("batch", min=1, max=max(1024, 2 * inputs[0].shape[0]))
    return tuple({0: batch} for _ in inputs)


def export(outdir, only=None, dynamic_batch=False):
    for name, (make_module, make_inputs) in workloads().items():
        if only and name not in only:
            continue
        d = os.path.join(outdir, name)
        os.makedirs(d, exist_ok=True)
        module = make_module().eval()
        inputs = make_inputs()
        shapes = batch_dynamic_shapes(inputs) if dynamic_batch else None
        with torch.no_grad():
            ep = torch.export.export(module, inputs, dynamic_shapes=shapes)
        pt2 = os.path.join(d, "model.pt2")
        torch.export.save(relative_traces(ep), pt2)
        with zipfile.ZipFile(pt2) as z:
            entry = [n for n in z.namelist() if n.endswith("models/model.json")][0]
            with open(os.path.join(d, "model.json"), "wb") as f:
                f.write(z.read(entry))
        if os.path.getsize(pt2) > 8 << 20:  # weights are rebuilt from the seed instead
            os.remove(pt2)
        print("exported", name)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", metavar="DIR")
    ap.add_argument("--export-models", metavar="DIR")
    ap.add_argument("--dtypes", default="fp32,bf16", help="for --export-models")
    ap.add_argument("--only", nargs="*", help="export only these workloads")
    ap.add_argument("--dynamic-batch", action="store_true",
                    help="for --export: dim 0 of every input symbolic (one batch symbol), so "
                         "that the artifact can be compiled with --specialize at the workload's "
                         "batch and timed against its generic variant (gpu_benchmark.py)")
    args = ap.parse_args()
    if args.export:
        export(args.export, args.only, args.dynamic_batch)
    if args.export_models:
        export_models(args.export_models, args.only, args.dtypes.split(","))
