"""tilekit.nn: drop-in modules whose forward and backward run TileKit kernels (docs/python.md).

Each is its torch.nn counterpart subclassed: the same constructor arguments, parameters,
initialisation and state_dict keys, so weights load either way; only forward differs, and the
`target` attribute ("cpu" or "tt", settable) says where its kernels run."""

import torch

from . import functional as F


class Linear(torch.nn.Linear):
    """torch.nn.Linear(in_features, out_features, bias=True, device=None, dtype=None)."""

    def __init__(self, *args, target="cpu", **kwargs):
        super().__init__(*args, **kwargs)
        self.target = target

    def forward(self, x):
        return F.linear(x, self.weight, self.bias, target=self.target)

    def extra_repr(self):
        return super().extra_repr() + ", target=%s" % self.target


class GELU(torch.nn.GELU):
    """torch.nn.GELU() (approximate='none' only: the language's gelu is the exact form)."""

    def __init__(self, approximate="none", *, target="cpu"):
        if approximate != "none":
            raise ValueError("tilekit.nn.GELU: only approximate='none' (the exact erf form)")
        super().__init__(approximate)
        self.target = target

    def forward(self, x):
        return F.gelu(x, target=self.target)


class SiLU(torch.nn.SiLU):
    """torch.nn.SiLU()."""

    def __init__(self, inplace=False, *, target="cpu"):
        super().__init__(inplace)
        self.target = target

    def forward(self, x):
        return F.silu(x, target=self.target)


class Softmax(torch.nn.Softmax):
    """torch.nn.Softmax(dim=-1) (the last dimension only)."""

    def __init__(self, dim=-1, *, target="cpu"):
        super().__init__(dim)
        self.target = target

    def forward(self, x):
        return F.softmax(x, self.dim, target=self.target)


class LayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, device=None,
    dtype=None), over the last dimension."""

    def __init__(self, *args, target="cpu", **kwargs):
        super().__init__(*args, **kwargs)
        self.target = target

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps,
                            target=self.target)


class RMSNorm(torch.nn.Module):
    """torch 2.4's torch.nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True,
    device=None, dtype=None) (torch 1.13 has none): the parameter `weight`, initialised to 1."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None, *, target="cpu"):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(torch.ones(self.normalized_shape, device=device,
                                                        dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.target = target

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps, target=self.target)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s, target=%s" % (
            self.normalized_shape, self.eps, self.elementwise_affine, self.target)


class MLP(torch.nn.Module):
    """A transformer MLP: fc2(gelu(fc1(x))), fc1 [hidden, d_model] and fc2 [d_model, hidden]
    (torch has no MLP module; the keys are fc1.weight, fc1.bias, fc2.weight, fc2.bias)."""

    def __init__(self, d_model, hidden, bias=True, device=None, dtype=None, *, target="cpu"):
        super().__init__()
        self.fc1 = Linear(d_model, hidden, bias, device=device, dtype=dtype, target=target)
        self.fc2 = Linear(hidden, d_model, bias, device=device, dtype=dtype, target=target)
        self.act = GELU(target=target)

    @property
    def target(self):
        return self.fc1.target

    @target.setter
    def target(self, value):
        for m in (self.fc1, self.fc2, self.act):
            m.target = value

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CausalSelfAttention(torch.nn.Module):
    """Multi-head causal self-attention as GPT-2 lays it out (torch has no such module):
    c_attn = Linear(n_embd, 3 n_embd) gives q, k and v, each split into n_head heads of
    n_embd / n_head; every head attends causally (tilekit.functional.attention); c_proj =
    Linear(n_embd, n_embd) mixes the heads. Keys: c_attn.weight, c_attn.bias, c_proj.weight,
    c_proj.bias. Input and output [B, T, n_embd]."""

    def __init__(self, n_embd, n_head, bias=True, device=None, dtype=None, *, target="cpu"):
        super().__init__()
        if n_embd % n_head:
            raise ValueError("n_embd (%d) must be a multiple of n_head (%d)" % (n_embd, n_head))
        self.n_embd, self.n_head = n_embd, n_head
        self.c_attn = Linear(n_embd, 3 * n_embd, bias, device=device, dtype=dtype, target=target)
        self.c_proj = Linear(n_embd, n_embd, bias, device=device, dtype=dtype, target=target)
        self._target = target

    @property
    def target(self):
        return self._target

    @target.setter
    def target(self, value):
        self._target = self.c_attn.target = self.c_proj.target = value

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        # [B, T, C] -> [B, H, T, D]: data movement only; the heads are the kernels' batch
        q, k, v = (z.reshape(b, t, self.n_head, c // self.n_head).transpose(1, 2)
                   for z in (q, k, v))
        y = F.attention(q, k, v, target=self._target)
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))
