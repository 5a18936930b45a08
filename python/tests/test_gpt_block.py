"""examples/python/gpt_block.py: a GPT block from tilekit.nn against the same block from
torch.nn, forward output and every parameter's gradient after one backward (its bounds:
normwise relative error 2e-2 at bf16, 1e-4 at f32, and PCC >= 0.999)."""

import importlib.util
import io
import os

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "gpt_block", os.path.join(ROOT, "examples", "python", "gpt_block.py"))
gpt_block = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpt_block)


@pytest.mark.parametrize("target,dtype", [("cpu", torch.bfloat16), ("cpu", torch.float32),
                                          ("tt", torch.bfloat16)])
def test_gpt_block_matches_torch(target, dtype):
    out = io.StringIO()
    failed = gpt_block.run(target, dtype, out=out)
    text = out.getvalue()
    assert failed == 0, text
    # the output and the gradients of all 12 parameters were compared
    assert text.count(" ok\n") == 13, text
