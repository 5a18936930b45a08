"""tilekit.compile and kernels on torch tensors, against references in double precision.

Bounds (README): bf16 results |err| <= 1.6e-2 * (1 + |ref|) elementwise; f32 matmul on the CPU
|err| <= K * 2^-23 * sum_k |a_ik b_kj| + 1e-30 (the classic bound of a K-term f32 dot product with
a rounded result). The references take the same rounded inputs the kernels get."""

import os
import subprocess
import sys

import pytest
import torch

import tilekit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def example(name):
    return os.path.join(EXAMPLES, name + ".tk")


def assert_bf16_close(got, ref):
    """Elementwise |got - ref| <= 1.6e-2 (1 + |ref|), ref in double."""
    assert got.dtype == torch.bfloat16
    err = (got.double() - ref).abs()
    bound = 1.6e-2 * (1 + ref.abs())
    worst = (err - bound).max().item()
    assert worst <= 0, "max |err| %.3e exceeds the bound by %.3e" % (err.max().item(), worst)


@pytest.mark.parametrize("target", ["cpu", "tt"])
def test_softmax_matches_torch(target):
    torch.manual_seed(0)
    k = tilekit.compile(example("softmax"), target=target)
    x = torch.randn(256, 384, dtype=torch.bfloat16)
    y = k.softmax(x)
    assert y.shape == (256, 384) and y.dtype == torch.bfloat16
    assert_bf16_close(y, torch.softmax(x.double(), -1))


def test_axpby_scalars_from_source_text():
    torch.manual_seed(1)
    with open(example("axpby")) as f:
        k = tilekit.compile(f.read())
    x = torch.randn(64, 96, dtype=torch.bfloat16)
    y = torch.randn(64, 96, dtype=torch.bfloat16)
    z = k.axpby(x, y, 0.5, beta=-2.0)  # scalars positional or by name
    assert_bf16_close(z, 0.5 * x.double() - 2.0 * y.double())


def test_batched_matmul_batch_dimension():
    torch.manual_seed(2)
    k = tilekit.compile(example("batched_matmul"))
    a = torch.randn(3, 64, 96, dtype=torch.bfloat16)
    b = torch.randn(3, 96, 32, dtype=torch.bfloat16)
    c = k.batched_matmul(a, b)
    assert c.shape == (3, 64, 32)
    assert_bf16_close(c, torch.bmm(a.double(), b.double()))


def test_matmul_f32_and_non_contiguous_input():
    torch.manual_seed(3)
    k = tilekit.compile(example("matmul_f32"))
    a = torch.randn(64, 128, dtype=torch.float32)
    b = torch.randn(96, 128, dtype=torch.float32).t()  # a transposed view: copied to row-major
    assert not b.is_contiguous()
    c = k.matmul_f32(a, b)
    ref = a.double() @ b.double()
    bound = 128 * 2.0**-23 * (a.double().abs() @ b.double().abs()) + 1e-30
    assert c.dtype == torch.float32
    assert ((c.double() - ref).abs() <= bound).all()


def test_shape_errors_are_run_cpus():
    k = tilekit.compile(example("matmul"))
    a = torch.zeros(64, 64, dtype=torch.bfloat16)
    with pytest.raises(tilekit.ShapeError) as e:
        k.matmul(a, torch.zeros(96, 32, dtype=torch.bfloat16))
    assert str(e.value) == "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96"
    with pytest.raises(tilekit.ShapeError) as e:
        k.matmul(torch.zeros(0, 64, dtype=torch.bfloat16), a)
    assert str(e.value) == ("matmul: A.rows = 0 but dimension M holds at least one tile "
                            "(a positive multiple of 32)")
    with pytest.raises(tilekit.ShapeError) as e:
        k.matmul(torch.zeros(40, 64, dtype=torch.bfloat16), a)
    assert str(e.value) == "matmul: A.rows = 40 is not a multiple of 32"


def test_shape_error_on_tt_is_run_tts():
    k = tilekit.compile(example("softmax"), target="tt")
    with pytest.raises(tilekit.ShapeError) as e:
        k.softmax(torch.zeros(40, 64, dtype=torch.bfloat16))
    assert str(e.value) == "softmax: x.rows = 40 is not a multiple of 32"


def test_dtype_rank_and_arity_errors():
    k = tilekit.compile(example("softmax"))
    with pytest.raises(TypeError) as e:
        k.softmax(torch.zeros(32, 32))
    assert str(e.value) == ("softmax: x is torch.float32 but is declared x: bf16[M, N], which "
                            "takes torch.bfloat16")
    with pytest.raises(tilekit.ShapeError) as e:
        k.softmax(torch.zeros(2, 32, 32, dtype=torch.bfloat16))
    assert str(e.value) == ("softmax: x has 3 dimensions (2, 32, 32) but is declared "
                            "x: bf16[M, N]")
    with pytest.raises(TypeError) as e:
        k.softmax()
    assert str(e.value) == "softmax: missing input x"


BAD = """kernel matmul(A: bf16[M, K], B: bf16[K, N]) -> (C: bf16[M, N]) {
    parallel i in tiles(M), j in tiles(N) {
        acc = zeros()
        for k in tiles(K) {
            acc += A[i, kk] @ B[k, j]
        }
        C[i, j] = acc
    }
}
"""


def test_compile_error_carries_located_diagnostics():
    with pytest.raises(tilekit.CompileError) as e:
        tilekit.compile(BAD)
    assert str(e.value) == ("<string>:5:25: error: unknown loop index 'kk'; did you mean 'k'?\n"
                            "   5 |             acc += A[i, kk] @ B[k, j]\n"
                            "     |                         ^~")
    d = e.value.diagnostics[0]
    assert (d["severity"], d["file"], d["line"], d["column"]) == ("error", "<string>", 5, 25)


def test_compile_error_is_ttgens(tmp_path):
    """The same text, byte for byte, as ttgen prints for the file."""
    path = tmp_path / "bad.tk"
    path.write_text(BAD)
    with pytest.raises(tilekit.CompileError) as e:
        tilekit.compile(path)
    ttgen = os.environ.get("TILEKIT_TTGEN") or os.path.join(
        os.path.dirname(tilekit.__file__), "..", "..", "tools", "ttgen", "ttgen")  # the build's
    run = subprocess.run([ttgen, str(path)], stderr=subprocess.PIPE, text=True)
    assert run.returncode == 1
    assert e.value.text == run.stderr


def test_second_compile_runs_no_compiler(monkeypatch):
    k1 = tilekit.compile(example("eltwise_add"))
    assert tilekit.compile(example("eltwise_add")) is k1  # the same process: the same module
    # A new process (here: the module table cleared) loads the cached library: neither the
    # TileKit compiler nor the C++ compiler may run.
    monkeypatch.setattr(tilekit, "_loaded", {})

    def forbidden(*a, **kw):
        raise AssertionError("compiler ran on a cache hit")

    monkeypatch.setattr(tilekit._build._tilekit, "compile", forbidden)
    monkeypatch.setattr(tilekit._build.subprocess, "run", forbidden)
    k2 = tilekit.compile(example("eltwise_add"))
    assert k2 is not k1 and k2.directory == k1.directory
    x = torch.randn(32, 64, dtype=torch.bfloat16)
    assert_bf16_close(k2.eltwise_add(x, x), 2 * x.double())


class Built(Exception):
    pass


def test_options_change_the_cache_key(monkeypatch, tmp_path):
    a = tilekit.compile(example("softmax"), target="tt")
    tilekit.compile(example("softmax"), target="tt", grid=None)  # the same key: no build

    def build(cmd, **kw):  # stands in for the C++ compiler: proves a build was started
        raise Built(" ".join(cmd))

    monkeypatch.setattr(tilekit._build.subprocess, "run", build)
    for options in ({"grid": "2x2"}, {"cb_depth": 3}, {"fp32_acc": True},
                    {"math_fidelity": "LoFi"}, {"warnings": ["-Werror"]}):
        with pytest.raises(Built):
            tilekit.compile(example("softmax"), target="tt", **options)
    with pytest.raises(Built):
        tilekit.compile(example("softmax"), target="cpu", cache_dir=str(tmp_path))
    with pytest.raises(ValueError) as e:
        tilekit.compile(example("softmax"), target="tt", grid="9x1")
    assert str(e.value) == "grid: not a core grid; write 'XxY' or (X, Y) with each side 1 to 8"


def test_timing_report():
    k = tilekit.compile(example("softmax"), target="tt")
    x = torch.randn(64, 64, dtype=torch.bfloat16)
    with tilekit.timing() as t:
        k.softmax(x)
    assert len(t.programs) == 1
    p = t.programs[0]
    assert p["device_us"] > 0 and p["device_cycles"] > 0
    # softmax's three passes over a row of x read it from DRAM once: keep-rows holds a row of
    # up to 256 tiles in L1 (docs/lowering.md); y is written once. bf16 tiles: 2 bytes a value.
    assert p["dram_bytes_written"] == 64 * 64 * 2
    assert p["dram_bytes_read"] == 64 * 64 * 2
    assert t.report().startswith("program 0: ")


def test_readme_command_prints_a_bounded_error():
    code = ("import torch, tilekit; k = tilekit.compile('examples/softmax.tk'); "
            "x = torch.randn(256, 384, dtype=torch.bfloat16); "
            "print((k.softmax(x).float() - torch.softmax(x.float(), -1)).abs().max())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    value = float(out.strip().replace("tensor(", "").rstrip(")"))
    assert 0 <= value <= 1.6e-2 * 2  # softmax values are in [0, 1]
