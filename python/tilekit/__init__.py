"""TileKit from PyTorch (docs/python.md).

    k = tilekit.compile("examples/softmax.tk")            # or the .tk source text
    y = k.softmax(x)                                       # torch tensors in and out
    k = tilekit.compile("examples/softmax.tk", target="tt")  # the TT-Metalium code, emulated
"""

import ctypes
import os
import re
import threading
import warnings as _warnings

from . import _paths

# The emulator's JIT-compiled device kernels resolve its entry points in the process's global
# scope, as they do in a host program linked against it: load it there before the extension
# (which Python loads with RTLD_LOCAL) pulls it in.
ctypes.CDLL(os.path.join(_paths.EMULATOR_LIB, "libtk_emulator.so"), mode=ctypes.RTLD_GLOBAL)

from . import _tilekit  # noqa: E402
from ._build import BuildError, CompileError
from ._build import cache_dir as _cache_dir
from ._kernel import Kernel, Module, ShapeError

__version__ = _tilekit.version
__all__ = ["compile", "CompileError", "BuildError", "ShapeError", "Kernel", "Module", "timing",
           "CompileWarning"]

_FIDELITIES = ("LoFi", "HiFi2", "HiFi3", "HiFi4")
_loaded = {}  # cache key -> Module: a second compile in the process returns the same module
_lock = threading.Lock()


class CompileWarning(UserWarning):
    """A warning of the compiler (-Wunused-input, ...), with its location."""


def _source(path_or_source):
    """(text, name diagnostics show, file stem) of a path or of .tk source text."""
    if isinstance(path_or_source, os.PathLike):
        path_or_source = os.fspath(path_or_source)
    if not isinstance(path_or_source, str):
        raise TypeError("tilekit.compile takes a path or .tk source text, not %s"
                        % type(path_or_source).__name__)
    s = path_or_source
    if os.path.isfile(s) or "\n" not in s and not ("kernel" in s and "(" in s):
        with open(s) as f:  # FileNotFoundError for a missing file
            text = f.read()
        stem = os.path.basename(s).split(".")[0]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", stem):
            stem = "kernels"
        return text, s, stem
    return s, "<string>", "kernels"


def _options(grid, cb_depth, fp32_acc, math_fidelity):
    """ttgen's --grid, --cb-depth, --fp32-acc and --math-fidelity, checked as ttgen checks them."""
    opts = {}
    if grid is not None:
        if isinstance(grid, str):
            m = re.fullmatch(r"(\d+)x(\d+)", grid)
            grid = (int(m.group(1)), int(m.group(2))) if m else None
        gx, gy = _tilekit.grid_sides  # the architecture's grid (arch/), as ttgen's --grid
        if not (isinstance(grid, tuple) and len(grid) == 2 and 1 <= grid[0] <= gx
                and 1 <= grid[1] <= gy):
            sides = ("each side 1 to %d" % gx if gx == gy
                     else "x 1 to %d and y 1 to %d" % (gx, gy))
            raise ValueError("grid: not a core grid; write 'XxY' or (X, Y) with " + sides)
        opts["grid"] = list(grid)
    if cb_depth is not None:
        if not 1 <= int(cb_depth) <= 8:
            raise ValueError("cb_depth: %s is not in 1 to 8" % cb_depth)
        opts["cb_depth"] = int(cb_depth)
    if fp32_acc is not None:
        opts["fp32_acc"] = bool(fp32_acc)
    if math_fidelity is not None:
        if math_fidelity not in _FIDELITIES:
            raise ValueError("math_fidelity: '%s' is not one of %s" % (
                math_fidelity, ", ".join(_FIDELITIES)))
        opts["math_fidelity"] = math_fidelity
    return opts


def compile(path_or_source, target="cpu", *, grid=None, cb_depth=None, fp32_acc=None,
            math_fidelity=None, warnings=(), cache_dir=None):
    """Compiles a .tk file (a path, or the source text itself) for `target` ("cpu", or "tt": the
    TT-Metalium code run on the emulator) and returns a Module whose attributes are its kernels.

    grid, cb_depth, fp32_acc and math_fidelity override the kernels' @options like ttgen's flags;
    `warnings` takes ttgen's -W flags ("-Werror", "-Wno-unused-input"). The library is cached on
    disk by source, target, options and TileKit build ($TILEKIT_CACHE_DIR, or `cache_dir`).
    Raises CompileError with ttgen's diagnostics for a kernel the compiler rejects."""
    if target not in ("cpu", "tt"):
        raise ValueError("target must be 'cpu' or 'tt', not %r" % (target,))
    from . import _build

    text, name, stem = _source(path_or_source)
    opts = _options(grid, cb_depth, fp32_acc, math_fidelity)
    flags = list(warnings)
    if target == "tt":  # the emulator's JIT-compiled device kernels live next to ours
        os.environ.setdefault("TT_METAL_EMULATOR_CACHE_DIR",
                              os.path.join(_cache_dir(cache_dir), "emulator"))
    with _lock:
        directory, meta = _build.build(text, name, stem, target, opts, flags, cache_dir)
        module = _loaded.get(directory)
        if module is None:
            module = _loaded[directory] = Module(directory, meta)
    if meta["warnings"]:
        _warnings.warn(meta["warnings"].rstrip("\n"), CompileWarning, stacklevel=2)
    return module


class timing:
    """Runs the emulator's timing model (docs/timing.md) for the TT kernels called inside:

        with tilekit.timing() as t:
            k.softmax(x)
        t.programs[0]["device_us"]

    `programs` holds one dict per program run (a kernel may run several), as the emulator's
    ProgramTiming: device cycles and microseconds, DRAM bytes, utilisation, per-core kernels."""

    def __init__(self):
        self.programs = []

    def __enter__(self):
        _tilekit.set_timing(True)
        return self

    def __exit__(self, *exc):
        self.programs = _tilekit.timings()
        _tilekit.set_timing(None)
        return False

    def report(self):
        """One line per program: device time, DRAM traffic, bounds."""
        lines = []
        for i, p in enumerate(self.programs):
            lines.append("program %d: %.2f us (%d cycles at %.2f GHz), DRAM %d B read %d B written "
                         "(%.1f GB/s), compute bound %d cycles, DRAM bound %d cycles" % (
                             i, p["device_us"], p["device_cycles"], p["clock_ghz"],
                             p["dram_bytes_read"], p["dram_bytes_written"], p["dram_gbps"],
                             p["compute_bound_cycles"], p["dram_bound_cycles"]))
        return "\n".join(lines)


from . import functional, nn  # noqa: E402  (they use compile, defined above)
