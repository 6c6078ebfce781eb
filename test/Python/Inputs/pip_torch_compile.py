import torch  # backend="tcc" by name: found through the torch_dynamo_backends entry point
def foo(x, y): return torch.sin(x) + torch.cos(y)
x, y = torch.randn(10, 10), torch.randn(10, 10)
err = ((torch.compile(foo, backend="tcc")(x, y) - foo(x, y)).abs().max() / foo(x, y).abs().max()).item()
print('torch.compile(backend="tcc"):', "matches" if err <= 1e-5 else f"MISMATCH {err}")
