"""tilekit.compile's build step: .tk source -> generated C++ -> a shared library, cached.

The compiler runs in-process (the _tilekit extension); the generated files, a small C shim that
calls each kernel's run_cpu / run_tt, and the runtime headers are compiled with the C++ compiler
TileKit was built with into <cache>/<key>/kernel.so. The key covers the source text, the target,
the options, the TileKit version and the build of the extension, so a second compile of the same
kernel costs no compiler run: it loads the library already built (docs/python.md).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import _paths
from . import _tilekit


class CompileError(Exception):
    """A .tk file the compiler rejects: str() is ttgen's located diagnostics, clang-style;
    `diagnostics` the same as a list of dicts (severity, message, file, line, column)."""

    def __init__(self, text, diagnostics=()):
        super().__init__(text.rstrip("\n"))
        self.text = text
        self.diagnostics = list(diagnostics)


class BuildError(Exception):
    """The C++ compiler failed on generated code (a TileKit bug): the command and its output."""


def cache_dir(override=None):
    """Where compiled kernels are kept: the argument, else $TILEKIT_CACHE_DIR, else
    $XDG_CACHE_HOME/tilekit/python, else ~/.cache/tilekit/python."""
    if override:
        return os.path.abspath(override)
    env = os.environ.get("TILEKIT_CACHE_DIR")
    if env:
        return os.path.abspath(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "tilekit", "python")


def _build_id():
    """The build of TileKit this package is: a rebuilt extension (new compiler, templates or
    runtime) invalidates every cached kernel."""
    ids = [_paths.VERSION, _paths.CXX]
    for lib in (_tilekit.__file__, os.path.join(_paths.PACKAGE, "libtilekit_cpu.so")):
        st = os.stat(lib)
        ids.append("%s:%d:%d" % (os.path.basename(lib), st.st_size, st.st_mtime_ns))
    return ids


def _element(param):
    return "tk::bf16" if param["dtype"] == "bf16" else "float"  # bfp8: float (README)


def _view(param, i, const):
    e = ("const " if const else "") + _element(param)
    data = "static_cast<%s*>(data[%d])" % (e, i)
    if len(param["dims"]) == 3:
        return "tk::TensorView<%s>{%s, shape[%d], shape[%d], shape[%d]}" % (
            e, data, 3 * i, 3 * i + 1, 3 * i + 2)
    return "tk::MatrixView<%s>{%s, shape[%d], shape[%d]}" % (e, data, 3 * i + 1, 3 * i + 2)


def shim(stem, kernels, target):
    """C++ source of the entry points Python calls with ctypes: per kernel K,
    `int tkpy_K(void* device, void* const* data, const int64_t* shape, const float* scalars,
    char* error, unsigned long error_size)`: tensors in signature order (inputs, then outputs),
    each with (batch, rows, cols) in `shape`. Returns 0; 1 with the message of the tk::Error
    run_cpu/run_tt throw for shapes that break the signature; 2 with that of any other exception
    (the emulator's: a kernel that fails to build or load, a deadlock)."""
    out = ['#include "%s.hpp"' % stem, "", "#include <cstdint>", "#include <cstdio>",
           "#include <exception>", ""]
    for k in kernels:
        args, t, s = [], 0, 0
        for p in k["inputs"]:
            if p["tensor"]:
                args.append(_view(p, t, True))
                t += 1
            else:
                args.append("scalars[%d]" % s)
                s += 1
        for p in k["outputs"]:
            args.append(_view(p, t, False))
            t += 1
        ns = "tk::gen::%s::" % k["name"]
        if target == "tt":
            call = "%srun_tt(*static_cast<tt::tt_metal::distributed::MeshDevice*>(device), %s)" % (
                ns, ", ".join(args))
        else:
            call = "%srun_cpu(%s)" % (ns, ", ".join(args))
        out += [
            'extern "C" __attribute__((visibility("default"))) int tkpy_%s(' % k["name"],
            "    void* device, void* const* data, const std::int64_t* shape, const float* scalars,",
            "    char* error, unsigned long error_size) {",
            "  (void)device; (void)data; (void)shape; (void)scalars;",
            "  try {",
            "    %s;" % call,
            "    return 0;",
            "  } catch (const tk::Error& e) {",
            '    std::snprintf(error, error_size, "%s", e.what());',
            "    return 1;",
            "  } catch (const std::exception& e) {",
            '    std::snprintf(error, error_size, "%s", e.what());',
            "    return 2;",
            "  }",
            "}",
            "",
        ]
    return "\n".join(out)


def compile_command(work, final, stem, target):
    """The C++ compiler's command line for one kernel library: the sources generated in `work`,
    built into work/kernel.so; for tt, run_tt finds its device kernels under `final` (where
    `work` is renamed to when the build is done), by absolute path."""
    gen = os.path.join(work, "gen")
    cmd = [_paths.CXX, "-std=c++20", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
           "-I" + _paths.INCLUDE, "-I" + gen]
    if target == "tt":
        cmd += ["-I" + _paths.EMULATOR_INCLUDE,
                '-DTILEKIT_KERNEL_DIR="%s"' % os.path.join(final, "gen", "kernels"),
                os.path.join(gen, stem + "_tt.cpp")]
    else:
        cmd.append(os.path.join(gen, stem + "_cpu.cpp"))
    cmd += [os.path.join(work, "shim.cpp"), "-o", os.path.join(work, "kernel.so"),
            "-L" + _paths.PACKAGE, "-ltilekit_cpu", "-Wl,-rpath," + _paths.PACKAGE]
    if target == "tt":
        cmd += ["-L" + _paths.EMULATOR_LIB, "-ltk_emulator", "-Wl,-rpath," + _paths.EMULATOR_LIB]
    return cmd


def build(source, name, stem, target, options, warnings, cache=None):
    """Compiles `source` for `target` unless the cache has it; returns (directory, metadata):
    the directory holds kernel.so, the metadata the kernels' signatures and the warnings."""
    key_data = json.dumps({"source": source, "stem": stem, "target": target, "options": options,
                           "warnings": warnings, "build": _build_id()}, sort_keys=True)
    key = hashlib.sha256(key_data.encode()).hexdigest()[:32]
    root = cache_dir(cache)
    final = os.path.join(root, key)
    meta_path = os.path.join(final, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            return final, json.load(f)

    os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(prefix=key + ".", dir=root)
    try:
        result = _tilekit.compile(source, name, stem, os.path.join(work, "gen"), _paths.TEMPLATES,
                                  [target], warnings=warnings, **options)
        if not result["ok"]:
            raise CompileError(result["text"], result["diagnostics"])
        with open(os.path.join(work, "shim.cpp"), "w") as f:
            f.write(shim(stem, result["kernels"], target))
        cmd = compile_command(work, final, stem, target)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, LC_ALL="C"))
        if proc.returncode != 0:
            raise BuildError("C++ compilation of generated code failed (a TileKit bug):\n"
                             + " ".join(cmd) + "\n" + proc.stdout)
        meta = {"kernels": result["kernels"], "warnings": result["text"], "target": target,
                "stem": stem}
        with open(os.path.join(work, "meta.json"), "w") as f:
            json.dump(meta, f)
        try:
            os.rename(work, final)
        except OSError:  # another process built it first: use theirs
            if not os.path.exists(meta_path):
                raise
            shutil.rmtree(work, ignore_errors=True)
            with open(meta_path) as f:
                meta = json.load(f)
        return final, meta
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
