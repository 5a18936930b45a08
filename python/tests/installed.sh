#!/usr/bin/env bash
# ctest python.installed: `cmake --install` the build to a fresh prefix, then import tilekit from
# there, outside the source tree, and run a kernel: the installed package finds its headers,
# templates and libraries relative to itself (python/paths.py.in), not in the build or source.
#   installed.sh CMAKE BUILD_DIR WORK_DIR PYTHON SOFTMAX_TK
set -euo pipefail
cmake="$1" build="$2" work="$3" python="$4" softmax="$5"
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"
cp "$softmax" "$work/softmax.tk"
cd "$work"
PYTHONPATH="$work/prefix/lib/python3/dist-packages" TILEKIT_CACHE_DIR="$work/cache" "$python" - <<'PY'
import os
import torch
import tilekit
from tilekit import _paths

prefix = os.path.join(os.getcwd(), "prefix")
for path in (tilekit.__file__, _paths.INCLUDE, _paths.EMULATOR_INCLUDE, _paths.EMULATOR_LIB,
             _paths.TEMPLATES):
    assert os.path.realpath(path).startswith(prefix + os.sep), path
    assert os.path.exists(path), path
k = tilekit.compile("softmax.tk")
x = torch.randn(64, 96, dtype=torch.bfloat16)
ref = torch.softmax(x.double(), -1)
err = (k.softmax(x).double() - ref).abs()
assert (err <= 1.6e-2 * (1 + ref.abs())).all(), err.max()
print("installed tilekit %s: softmax max |err| %.3e" % (tilekit.__version__, err.max().item()))
PY
