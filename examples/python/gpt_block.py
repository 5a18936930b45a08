"""A GPT block built from tilekit.nn, checked against the same block built from torch.nn.

    x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))

The torch block (TorchBlock) uses only torch.nn and torch ops; the TileKit block (TileKitBlock)
has the same module names, so it loads the torch block's state_dict. The script runs one
training step's forward and backward through both — the TileKit block in bf16 (or f32) on the
chosen target, the torch block in double on the same (rounded) weights and input — and compares
the output and every parameter's gradient:

    relative error ||got - ref|| / ||ref|| <= 2e-2 (bf16) or 1e-4 (f32), and PCC >= 0.999

    PYTHONPATH=build/ci/python python3 examples/python/gpt_block.py [--target tt] [--dtype f32]
"""

import argparse
import sys

import torch

import tilekit


class TorchAttention(torch.nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = torch.nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = torch.nn.Linear(n_embd, n_embd)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.reshape(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        s = (q @ k.transpose(-1, -2)) * (c // self.n_head) ** -0.5
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        y = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))


class TorchMLP(torch.nn.Module):
    def __init__(self, n_embd, hidden):
        super().__init__()
        self.fc1 = torch.nn.Linear(n_embd, hidden)
        self.fc2 = torch.nn.Linear(hidden, n_embd)
        self.act = torch.nn.GELU()

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TorchBlock(torch.nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(n_embd)
        self.attn = TorchAttention(n_embd, n_head)
        self.ln_2 = torch.nn.LayerNorm(n_embd)
        self.mlp = TorchMLP(n_embd, 4 * n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TileKitBlock(torch.nn.Module):
    def __init__(self, n_embd, n_head, dtype, target):
        super().__init__()
        self.ln_1 = tilekit.nn.LayerNorm(n_embd, dtype=dtype, target=target)
        self.attn = tilekit.nn.CausalSelfAttention(n_embd, n_head, dtype=dtype, target=target)
        self.ln_2 = tilekit.nn.LayerNorm(n_embd, dtype=dtype, target=target)
        self.mlp = tilekit.nn.MLP(n_embd, 4 * n_embd, dtype=dtype, target=target)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


TOLERANCE = {torch.bfloat16: 2e-2, torch.float32: 1e-4}


def compare(name, got, ref, rel_bound):
    """(ok, line): normwise relative error and Pearson correlation of got against ref."""
    got, ref = got.double().flatten(), ref.double().flatten()
    rel = ((got - ref).norm() / ref.norm()).item()
    pcc = torch.corrcoef(torch.stack([got, ref]))[0, 1].item()
    ok = rel <= rel_bound and pcc >= 0.999
    return ok, "%-24s rel %.3e  pcc %.6f  %s" % (name, rel, pcc, "ok" if ok else "FAIL")


def run(target="cpu", dtype=torch.bfloat16, batch=2, tokens=64, n_embd=64, n_head=2, seed=0,
        out=sys.stdout):
    """One forward and backward of both blocks; returns the number of failed comparisons."""
    torch.manual_seed(seed)
    ref = TorchBlock(n_embd, n_head)
    with torch.no_grad():  # LayerNorm's weight and bias away from 1 and 0, to be seen
        for ln in (ref.ln_1, ref.ln_2):
            ln.weight.add_(0.1 * torch.randn(n_embd))
            ln.bias.add_(0.1 * torch.randn(n_embd))
    mine = TileKitBlock(n_embd, n_head, dtype, target)
    mine.load_state_dict({k: v.to(dtype) for k, v in ref.state_dict().items()})
    ref = ref.double()
    ref.load_state_dict({k: v.double() for k, v in mine.state_dict().items()})  # the rounded weights

    x = torch.randn(batch, tokens, n_embd).to(dtype)
    dy = torch.randn(batch, tokens, n_embd).to(dtype)
    y = mine(x)
    y.backward(dy)
    y_ref = ref(x.double())
    y_ref.backward(dy.double())

    bound = TOLERANCE[dtype]
    results = [compare("output", y.detach(), y_ref.detach(), bound)]
    grads = dict(ref.named_parameters())
    for name, p in mine.named_parameters():
        results.append(compare("grad " + name, p.grad, grads[name].grad, bound))
    print("gpt block: target %s, %s, x [%d, %d, %d], %d heads" % (
        target, str(dtype).replace("torch.", ""), batch, tokens, n_embd, n_head), file=out)
    for _, line in results:
        print("  " + line, file=out)
    failed = sum(not ok for ok, _ in results)
    print("  %d of %d checks failed" % (failed, len(results)), file=out)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=["cpu", "tt"], default="cpu")
    ap.add_argument("--dtype", choices=["bf16", "f32"], default="bf16")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--heads", type=int, default=2)
    a = ap.parse_args()
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float32
    return 1 if run(a.target, dtype, tokens=a.tokens, n_embd=a.embd, n_head=a.heads) else 0


if __name__ == "__main__":
    sys.exit(main())
