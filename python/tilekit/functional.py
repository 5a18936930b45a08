"""tilekit.functional: ops with forward and backward, both run by .tk kernels (docs/python.md).

Every forward and every backward is a kernel of kernels/functional.tk, shipped in the package;
nothing here computes on tensor values, it only reshapes, picks the kernel and hands tensors over.
bf16 tensors run the file as written, f32 tensors the same file with f32 in place of bf16.
`target` is "cpu" or "tt" (the TT-Metalium code on the emulator). Leading dimensions are folded
into rows; rows and the last dimension must be multiples of 32 (a kernel's ShapeError otherwise).

The ops are also registered as torch.ops.tilekit.<name> (CompositeImplicitAutograd: autograd
goes through the same kernels)."""

import functools
import os

import torch

from . import compile as _compile

KERNELS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "functional.tk")
_DTYPES = {torch.bfloat16: "bf16", torch.float32: "f32"}


@functools.lru_cache(maxsize=None)
def kernels(target, dtype):
    """The compiled kernels of functional.tk for `target` and `dtype` (a torch dtype)."""
    if dtype not in _DTYPES:
        raise TypeError("tilekit.functional takes torch.bfloat16 or torch.float32 tensors, not %s"
                        % dtype)
    if _DTYPES[dtype] == "bf16":
        return _compile(KERNELS_FILE, target=target)
    with open(KERNELS_FILE) as f:
        text = f.read().replace("bf16", _DTYPES[dtype])
    # f32 on TT: accumulate in fp32 DST, at full fidelity (as examples/matmul_f32.tk)
    extra = {"fp32_acc": True, "math_fidelity": "HiFi4"} if target == "tt" else {}
    return _compile(text, target=target, **extra)


def _rows(x):
    """x as a matrix: its leading dimensions folded into rows."""
    return x.reshape(-1, x.shape[-1]) if x.dim() != 2 else x


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target):
        k = kernels(target, x.dtype)
        y = k.softmax_fwd(_rows(x))
        ctx.save_for_backward(y)
        ctx.k = k
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        dx = ctx.k.softmax_bwd(y, _rows(dy).to(y.dtype))
        return dx.reshape(dy.shape), None


class _Unary(torch.autograd.Function):
    """An element-wise op `name`: kernels name_fwd(x) and name_bwd(x, dy)."""

    @staticmethod
    def forward(ctx, x, name, target):
        k = kernels(target, x.dtype)
        x2 = _rows(x).contiguous()
        ctx.save_for_backward(x2)
        ctx.fn = k.kernels[name + "_bwd"]
        return k.kernels[name + "_fwd"](x2).reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        (x2,) = ctx.saved_tensors
        return ctx.fn(x2, _rows(dy).to(x2.dtype)).reshape(dy.shape), None, None


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, target):
        k = kernels(target, x.dtype)
        x2 = _rows(x).contiguous()
        if bias is None:
            y = k.linear_fwd_nobias(x2, weight)
        else:
            y = k.linear_fwd(x2, weight, bias.reshape(1, -1))
        ctx.save_for_backward(x2, weight)
        ctx.k, ctx.has_bias, ctx.x_shape = k, bias is not None, x.shape
        return y.reshape(*x.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(ctx, dy):
        x2, weight = ctx.saved_tensors
        dy2 = _rows(dy).to(x2.dtype).contiguous()
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dx = ctx.k.linear_bwd_x(dy2, weight).reshape(ctx.x_shape)
        if ctx.needs_input_grad[1]:
            dw = ctx.k.linear_bwd_w(dy2, x2)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = ctx.k.linear_bwd_b(dy2).reshape(-1)
        return dx, dw, db, None


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps, target):
        k = kernels(target, x.dtype)
        y, xhat, rstd = k.layer_norm_fwd(_rows(x), weight.reshape(1, -1), bias.reshape(1, -1),
                                         eps)
        ctx.save_for_backward(xhat, rstd, weight)
        ctx.k = k
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        xhat, rstd, weight = ctx.saved_tensors
        dy2 = _rows(dy).to(xhat.dtype).contiguous()
        dx = ctx.k.layer_norm_bwd_x(xhat, rstd, weight.reshape(1, -1), dy2).reshape(dy.shape)
        dgamma, dbeta = ctx.k.layer_norm_bwd_params(xhat, dy2)
        return dx, dgamma.reshape(-1), dbeta.reshape(-1), None, None


class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps, target):
        k = kernels(target, x.dtype)
        x2 = _rows(x).contiguous()
        y, rstd = k.rms_norm_fwd(x2, weight.reshape(1, -1), eps)
        ctx.save_for_backward(x2, rstd, weight)
        ctx.k = k
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        x2, rstd, weight = ctx.saved_tensors
        dy2 = _rows(dy).to(x2.dtype).contiguous()
        dx = ctx.k.rms_norm_bwd_x(x2, rstd, weight.reshape(1, -1), dy2).reshape(dy.shape)
        dw = ctx.k.rms_norm_bwd_w(x2, rstd, dy2)
        return dx, dw.reshape(-1), None, None


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, scale, target):
        kern = kernels(target, q.dtype)
        shape = q.shape
        q3, k3, v3 = (t.reshape(-1, *t.shape[-2:]).contiguous() for t in (q, k, v))
        p = kern.attn_probs(q3, k3, scale)
        ctx.save_for_backward(q3, k3, v3, p)
        ctx.k, ctx.scale = kern, scale
        return kern.attn_pv(p, v3).reshape(shape)

    @staticmethod
    def backward(ctx, do):
        q3, k3, v3, p = ctx.saved_tensors
        do3 = do.reshape(q3.shape).to(q3.dtype).contiguous()
        dv = ctx.k.attn_dv(p, do3)
        ds = ctx.k.attn_ds(p, do3, v3, ctx.scale)
        dq = ctx.k.attn_dq(ds, k3)
        dk = ctx.k.attn_dk(ds, q3)
        return dq.reshape(do.shape), dk.reshape(do.shape), dv.reshape(do.shape), None, None


def attention(q, k, v, scale=None, *, target="cpu"):
    """Causal attention: softmax(mask(q @ k^T * scale)) @ v, each query attending to itself and
    the keys before it; q, k, v [..., S, D] (the leading dimensions are heads and batches),
    scale 1/sqrt(D) when None. The probabilities [..., S, S] are kept for the backward."""
    if not (q.shape == k.shape == v.shape) or q.dim() < 3:
        raise ValueError("tilekit.functional.attention: q, k and v must have one shape "
                         "[..., S, D] with at least one leading dimension, not %s, %s, %s"
                         % (tuple(q.shape), tuple(k.shape), tuple(v.shape)))
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    return _Attention.apply(q, k, v, float(scale), target)


def _normalized_last(name, x, normalized_shape):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if len(shape) != 1 or shape[0] != x.shape[-1]:
        raise ValueError("tilekit.functional.%s: normalizes the last dimension only "
                         "(normalized_shape=(%d,)), not %s" % (name, x.shape[-1], shape))


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, *, target="cpu"):
    """torch.nn.functional.layer_norm over the last dimension (weight 1, bias 0 when None)."""
    _normalized_last("layer_norm", x, normalized_shape)
    n = x.shape[-1]
    weight = torch.ones(n, dtype=x.dtype) if weight is None else weight
    bias = torch.zeros(n, dtype=x.dtype) if bias is None else bias
    return _LayerNorm.apply(x, weight, bias, float(eps), target)


def rms_norm(x, normalized_shape, weight=None, eps=None, *, target="cpu"):
    """RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight, as torch 2.4's
    torch.nn.functional.rms_norm (eps None: torch.finfo(x.dtype).eps)."""
    _normalized_last("rms_norm", x, normalized_shape)
    weight = torch.ones(x.shape[-1], dtype=x.dtype) if weight is None else weight
    eps = torch.finfo(x.dtype).eps if eps is None else eps
    return _RMSNorm.apply(x, weight, float(eps), target)


def softmax(x, dim=-1, *, target="cpu"):
    """torch.softmax(x, dim) along the last dimension."""
    if dim not in (-1, x.dim() - 1):
        raise ValueError("tilekit.functional.softmax: only the last dimension (dim=-1), not %d"
                         % dim)
    return _Softmax.apply(x, target)


def silu(x, *, target="cpu"):
    """torch.nn.functional.silu(x)."""
    return _Unary.apply(x, "silu", target)


def gelu(x, *, target="cpu"):
    """torch.nn.functional.gelu(x) (the exact erf form, torch's default)."""
    return _Unary.apply(x, "gelu", target)


def linear(x, weight, bias=None, *, target="cpu"):
    """torch.nn.functional.linear: x @ weight^T + bias, weight [out, in]."""
    if bias is not None and bias.dtype != x.dtype:
        raise TypeError("tilekit.functional.linear: bias is %s but x is %s" % (bias.dtype, x.dtype))
    return _Linear.apply(x, weight, bias, target)


# torch.ops.tilekit.<name>: the same ops through torch's dispatcher (torch 1.13's Python
# registration; CompositeImplicitAutograd, so autograd records the autograd.Functions above).
_lib = torch.library.Library("tilekit", "DEF")
_OPS = {
    "softmax(Tensor x, str target='cpu') -> Tensor":
        lambda x, target="cpu": softmax(x, target=target),
    "silu(Tensor x, str target='cpu') -> Tensor": lambda x, target="cpu": silu(x, target=target),
    "gelu(Tensor x, str target='cpu') -> Tensor": lambda x, target="cpu": gelu(x, target=target),
    "linear(Tensor x, Tensor weight, Tensor? bias=None, str target='cpu') -> Tensor":
        lambda x, weight, bias=None, target="cpu": linear(x, weight, bias, target=target),
    "layer_norm(Tensor x, Tensor weight, Tensor bias, float eps=1e-05, str target='cpu') -> Tensor":
        lambda x, weight, bias, eps=1e-5, target="cpu": layer_norm(
            x, (x.shape[-1],), weight, bias, eps, target=target),
    "rms_norm(Tensor x, Tensor weight, float? eps=None, str target='cpu') -> Tensor":
        lambda x, weight, eps=None, target="cpu": rms_norm(
            x, (x.shape[-1],), weight, eps, target=target),
    "attention(Tensor q, Tensor k, Tensor v, float? scale=None, str target='cpu') -> Tensor":
        lambda q, k, v, scale=None, target="cpu": attention(q, k, v, scale, target=target),
}
for _schema, _fn in _OPS.items():
    _lib.define(_schema)
    _lib.impl(_schema.split("(")[0], _fn, "CompositeImplicitAutograd")
