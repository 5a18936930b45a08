"""tilekit.functional and tilekit.nn: forward outputs and gradients against torch's own,
computed by torch in double from the same inputs.

Bounds, elementwise, with ref the double result:
  bf16: |err| <= 1.6e-2 * (1 + s)   (the README's bf16 bound)
  f32:  |err| <= 1e-4 * (1 + s)
where s = |ref| for softmax, silu and gelu, and for linear's outputs and gradients s is the sum of
the magnitudes of the terms (|a| @ |b|): a dot product's rounding error scales with its terms, not
with a result that may cancel to nothing."""

import pytest
import torch

import tilekit
import tilekit.functional as TF

BOUND = {torch.bfloat16: 1.6e-2, torch.float32: 1e-4}


def check(got, ref, scale=None):
    rel = BOUND[got.dtype]
    scale = ref.abs() if scale is None else scale
    err = (got.double() - ref).abs()
    excess = (err - rel * (1 + scale)).max().item()
    assert excess <= 0, "max |err| %.3e, over the bound by %.3e" % (err.max().item(), excess)


def inputs(dtype, *shape, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * scale).to(dtype)


UNARY = {"softmax": lambda x: torch.softmax(x, -1), "silu": torch.nn.functional.silu,
         "gelu": torch.nn.functional.gelu}


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward_and_backward(name, dtype):
    x = inputs(dtype, 2, 32, 64, seed=1, scale=2.0).requires_grad_()
    dy = inputs(dtype, 2, 32, 64, seed=2)
    y = getattr(TF, name)(x)
    y.backward(dy)
    xd = x.detach().double().requires_grad_()
    yd = UNARY[name](xd)
    yd.backward(dy.double())
    assert y.dtype == dtype and y.shape == x.shape
    check(y.detach(), yd.detach())
    check(x.grad, xd.grad)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_linear_forward_and_backward(dtype):
    x = inputs(dtype, 2, 32, 64, seed=3).requires_grad_()
    w = inputs(dtype, 96, 64, seed=4, scale=0.1).requires_grad_()
    b = inputs(dtype, 96, seed=5).requires_grad_()
    dy = inputs(dtype, 2, 32, 96, seed=6)
    y = TF.linear(x, w, b)
    y.backward(dy)
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
    yd = torch.nn.functional.linear(xd, wd, bd)
    yd.backward(dy.double())
    ax, aw, ady = x.detach().double().abs(), w.detach().double().abs(), dy.double().abs()
    check(y.detach(), yd.detach(), ax @ aw.t() + bd.detach().abs())
    check(x.grad, xd.grad, ady @ aw)
    check(w.grad, wd.grad, ady.reshape(-1, 96).t() @ ax.reshape(-1, 64))
    check(b.grad, bd.grad, ady.reshape(-1, 96).sum(0))


def test_tt_target_softmax_and_linear():
    dtype = torch.bfloat16
    x = inputs(dtype, 64, 64, seed=7).requires_grad_()
    w = inputs(dtype, 32, 64, seed=8, scale=0.1).requires_grad_()
    dy = inputs(dtype, 64, 32, seed=9)
    y = TF.linear(TF.softmax(x, target="tt"), w, target="tt")
    y.backward(dy)
    xd, wd = (t.detach().double().requires_grad_() for t in (x, w))
    sd = torch.softmax(xd, -1)
    yd = sd @ wd.t()
    yd.backward(dy.double())
    check(y.detach(), yd.detach(), sd.detach().abs() @ wd.detach().abs().t())
    check(w.grad, wd.grad, dy.double().abs().t() @ sd.detach().abs())
    # dx goes through softmax's backward: scale by the terms of dy @ w, times |y|
    check(x.grad, xd.grad, (dy.double().abs() @ wd.detach().abs()))


def test_torch_ops_registration():
    x = inputs(torch.bfloat16, 32, 64, seed=10).requires_grad_()
    y = torch.ops.tilekit.gelu(x, "cpu")
    y.sum().backward()
    xd = x.detach().double().requires_grad_()
    torch.nn.functional.gelu(xd).sum().backward()
    check(y.detach(), torch.nn.functional.gelu(x.detach().double()))
    check(x.grad, xd.grad)
    # every op is there, and each gives what tilekit.functional gives (the same kernels)
    w, b = inputs(torch.bfloat16, 64, seed=26), inputs(torch.bfloat16, 64, seed=27)
    q = inputs(torch.bfloat16, 2, 32, 32, seed=28)
    wl = inputs(torch.bfloat16, 32, 64, seed=29)
    x = x.detach()
    pairs = [
        (torch.ops.tilekit.softmax(x), TF.softmax(x)),
        (torch.ops.tilekit.silu(x), TF.silu(x)),
        (torch.ops.tilekit.linear(x, wl, b[:32]), TF.linear(x, wl, b[:32])),
        (torch.ops.tilekit.layer_norm(x, w, b), TF.layer_norm(x, (64,), w, b)),
        (torch.ops.tilekit.rms_norm(x, w, 1e-6), TF.rms_norm(x, (64,), w, 1e-6)),
        (torch.ops.tilekit.attention(q, q, q), TF.attention(q, q, q)),
    ]
    for got, want in pairs:
        assert torch.equal(got, want)


def test_nn_modules_are_drop_in():
    torch.manual_seed(11)
    ref = torch.nn.Linear(64, 96).to(torch.bfloat16)
    mine = tilekit.nn.Linear(64, 96, dtype=torch.bfloat16)
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["weight", "bias"]
    mine.load_state_dict(ref.state_dict())
    x = inputs(torch.bfloat16, 32, 64, seed=12)
    yd = torch.nn.functional.linear(x.double(), ref.weight.double(), ref.bias.double())
    check(mine(x).detach(), yd.detach(),
          x.double().abs() @ ref.weight.double().abs().t() + ref.bias.double().abs())
    mlp = tilekit.nn.MLP(64, 128, dtype=torch.bfloat16, target="tt")
    assert mlp.target == "tt" and mlp.fc2.target == "tt"
    assert list(mlp.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_layer_norm_forward_and_backward(dtype):
    x = inputs(dtype, 2, 32, 64, seed=13, scale=3.0).requires_grad_()
    w = (1 + inputs(dtype, 64, seed=14, scale=0.2)).requires_grad_()
    b = inputs(dtype, 64, seed=15).requires_grad_()
    dy = inputs(dtype, 2, 32, 64, seed=16)
    y = TF.layer_norm(x, (64,), w, b, 1e-5)
    y.backward(dy)
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
    yd = torch.nn.functional.layer_norm(xd, (64,), wd, bd, 1e-5)
    yd.backward(dy.double())
    check(y.detach(), yd.detach())
    # the scales of the backward's terms: rstd * (|g| + mean|g| + |xhat| mean|g xhat|)
    x0 = x.detach().double()
    rstd = 1 / (x0.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
    xhat = (x0 - x0.mean(-1, keepdim=True)) * rstd
    g = (dy.double() * wd.detach()).abs()
    check(x.grad, xd.grad, rstd * (g + g.mean(-1, keepdim=True)
                                   + xhat.abs() * (g * xhat.abs()).mean(-1, keepdim=True)))
    check(w.grad, wd.grad, (dy.double() * xhat).abs().reshape(-1, 64).sum(0))
    check(b.grad, bd.grad, dy.double().abs().reshape(-1, 64).sum(0))


def rms_norm_ref(x, w, eps):
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * w


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_rms_norm_forward_and_backward(dtype):
    x = inputs(dtype, 64, 96, seed=17, scale=2.0).requires_grad_()
    w = (1 + inputs(dtype, 96, seed=18, scale=0.2)).requires_grad_()
    dy = inputs(dtype, 64, 96, seed=19)
    y = TF.rms_norm(x, (96,), w, 1e-6)
    y.backward(dy)
    xd, wd = (t.detach().double().requires_grad_() for t in (x, w))
    yd = rms_norm_ref(xd, wd, 1e-6)
    yd.backward(dy.double())
    check(y.detach(), yd.detach())
    x0 = x.detach().double()
    r = torch.rsqrt(x0.square().mean(-1, keepdim=True) + 1e-6)
    g = (dy.double() * wd.detach()).abs()
    check(x.grad, xd.grad, r * g + x0.abs() * r**3 * (g * x0.abs()).mean(-1, keepdim=True))
    check(w.grad, wd.grad, (dy.double() * x0 * r).abs().sum(0))


def test_norm_modules_on_tt():
    torch.manual_seed(20)
    ref = torch.nn.LayerNorm(64).to(torch.bfloat16)
    with torch.no_grad():
        ref.weight.add_(0.1 * torch.randn(64).to(torch.bfloat16))
        ref.bias.add_(0.1 * torch.randn(64).to(torch.bfloat16))
    mine = tilekit.nn.LayerNorm(64, dtype=torch.bfloat16, target="tt")
    mine.load_state_dict(ref.state_dict())
    x = inputs(torch.bfloat16, 64, 64, seed=21)
    check(mine(x).detach(), torch.nn.functional.layer_norm(
        x.double(), (64,), ref.weight.double(), ref.bias.double()).detach())
    rms = tilekit.nn.RMSNorm(64, eps=1e-6, dtype=torch.bfloat16, target="tt")
    assert list(rms.state_dict()) == ["weight"]
    with torch.no_grad():
        rms.weight.add_(0.1 * torch.randn(64).to(torch.bfloat16))
    x.requires_grad_()
    dy = inputs(torch.bfloat16, 64, 64, seed=30)
    y = rms(x)
    y.backward(dy)
    xd, wd = x.detach().double().requires_grad_(), rms.weight.detach().double().requires_grad_()
    yd = rms_norm_ref(xd, wd, 1e-6)
    yd.backward(dy.double())
    check(y.detach(), yd.detach())
    x0 = x.detach().double()
    r = torch.rsqrt(x0.square().mean(-1, keepdim=True) + 1e-6)
    g = (dy.double() * wd.detach()).abs()
    check(x.grad, xd.grad, r * g + x0.abs() * r**3 * (g * x0.abs()).mean(-1, keepdim=True))
    check(rms.weight.grad, wd.grad, (dy.double() * x0 * r).abs().sum(0))


def attention_probs(q, k, scale):
    s = (q @ k.transpose(-1, -2)) * scale
    n = s.shape[-1]
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    return torch.softmax(s.masked_fill(~mask, float("-inf")), -1)


@pytest.mark.parametrize("dtype,target", [(torch.bfloat16, "cpu"), (torch.float32, "cpu"),
                                          (torch.bfloat16, "tt")])
def test_attention_forward_and_backward(dtype, target):
    q, k, v = (inputs(dtype, 2, 64, 32, seed=s).requires_grad_() for s in (22, 23, 24))
    do = inputs(dtype, 2, 64, 32, seed=25)
    o = TF.attention(q, k, v, target=target)
    o.backward(do)
    scale = 32 ** -0.5
    qd, kd, vd = (t.detach().double().requires_grad_() for t in (q, k, v))
    od = attention_probs(qd, kd, scale) @ vd
    od.backward(do.double())
    # scales: the magnitudes of the terms of each product, through the exact probabilities P
    p = attention_probs(qd, kd, scale).detach()
    aq, ak, av, ado = (t.detach().double().abs() for t in (q, k, v, do))
    adp = ado @ av.transpose(-1, -2)
    ads = p * (adp + (p * adp).sum(-1, keepdim=True)) * scale
    check(o.detach(), od.detach(), p @ av)
    check(v.grad, vd.grad, p.transpose(-1, -2) @ ado)
    check(q.grad, qd.grad, ads @ ak)
    check(k.grad, kd.grad, ads.transpose(-1, -2) @ aq)
