"""Modules whose forward writes their buffers in place (issue 37), shared by
the tests of tcc.compile (test/Inputs/python_compile_state.py) and of the
Dynamo backend (python_backend_state.py)."""
import torch


class RunningSum(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x):
        self.total.add_(x)
        return self.total * 2


class Cache(torch.nn.Module):
    """A static key cache written with index_copy_ at the positions given."""

    def __init__(self, length=16):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.register_buffer("k", torch.zeros(1, length, 8))

    def forward(self, x, pos):
        self.k.index_copy_(1, pos, self.proj(x))
        return self.k.sum(dim=1)


class AssignedCache(Cache):
    """The cache written as transformers' StaticCache writes it: k[:, pos] = v."""

    def forward(self, x, pos):
        self.k[:, pos] = self.proj(x)
        return torch.softmax(self.k @ x.transpose(1, 2), dim=1).sum(dim=1)
