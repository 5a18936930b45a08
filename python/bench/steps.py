"""The steps python/bench/modules_bench.cpp times: one module's forward, or forward and backward,
built from tilekit.nn or from torch.nn at the same shape, in bf16 on the CPU."""

import torch

import tilekit

DTYPE = torch.bfloat16


class TorchRMSNorm(torch.nn.Module):
    """torch 1.13 has no RMSNorm: the same computation from torch's own ops."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps) * self.weight


class TorchMLP(torch.nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = torch.nn.Linear(d, hidden)
        self.fc2 = torch.nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class TorchAttention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = torch.nn.Linear(d, 3 * d)
        self.c_proj = torch.nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        s = (q @ k.transpose(-1, -2)) * (c // self.heads) ** -0.5
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        y = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))


def module(name, impl, hidden):
    """Module `name` of `impl` ("tilekit" or "torch") for width `hidden`."""
    heads = hidden // 64
    if impl == "tilekit":
        return {"Linear": lambda: tilekit.nn.Linear(hidden, hidden),
                "LayerNorm": lambda: tilekit.nn.LayerNorm(hidden),
                "RMSNorm": lambda: tilekit.nn.RMSNorm(hidden, eps=1e-6),
                "MLP": lambda: tilekit.nn.MLP(hidden, 4 * hidden),
                "CausalSelfAttention": lambda: tilekit.nn.CausalSelfAttention(hidden, heads)}[name]()
    return {"Linear": lambda: torch.nn.Linear(hidden, hidden),
            "LayerNorm": lambda: torch.nn.LayerNorm(hidden),
            "RMSNorm": lambda: TorchRMSNorm(hidden),
            "MLP": lambda: TorchMLP(hidden, 4 * hidden),
            "CausalSelfAttention": lambda: TorchAttention(hidden, heads)}[name]()


def make_step(name, impl, tokens, hidden, backward):
    """A function of no arguments running one step; the first call has been made (compiles and
    caches are warm)."""
    torch.manual_seed(0)
    m = module(name, impl, hidden).to(DTYPE)
    shape = (1, tokens, hidden) if name == "CausalSelfAttention" else (tokens, hidden)
    x = torch.randn(*shape).to(DTYPE)
    dy = torch.randn(*shape).to(DTYPE)
    if backward:
        x.requires_grad_()

        def step():
            m.zero_grad(set_to_none=True)
            x.grad = None
            m(x).backward(dy)
    else:

        def step():
            with torch.no_grad():
                m(x)
    step()
    return step
