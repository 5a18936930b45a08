"""A compiled .tk file as Python: each kernel a function on torch tensors (docs/python.md)."""

import ctypes
import os
import threading

import torch

from . import _tilekit

_DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32, "bfp8": torch.float32}
_TT_LOCK = threading.Lock()  # one emulated device: one run at a time


class ShapeError(ValueError):
    """Tensor shapes that break a kernel's signature, with run_cpu's / run_tt's message."""


def _declared(p):
    dims = ", ".join(str(d) for d in p["dims"])
    return "%s: %s[%s]" % (p["name"], p["dtype"], dims) if p["tensor"] else \
        "%s: %s" % (p["name"], p["dtype"])


class Kernel:
    """One kernel of a compiled file. Call it with the inputs (tensors and scalars, in declaration
    order, or by name); it returns the output tensor, or a tuple of them."""

    def __init__(self, module, info, fn):
        self.module = module
        self.name = info["name"]
        self.inputs = info["inputs"]
        self.outputs = info["outputs"]
        self.target = module.target
        self._fn = fn

    def __repr__(self):
        return "<tilekit kernel %s(%s) -> (%s) on %s>" % (
            self.name, ", ".join(_declared(p) for p in self.inputs),
            ", ".join(_declared(p) for p in self.outputs), self.target)

    def _bind(self, args, kwargs):
        names = [p["name"] for p in self.inputs]
        if len(args) > len(names):
            raise TypeError("%s takes %d inputs (%s) but %d were given" % (
                self.name, len(names), ", ".join(names), len(args)))
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("%s has no input '%s' (its inputs are %s)" % (
                    self.name, k, ", ".join(names)))
            if k in values:
                raise TypeError("%s: input '%s' given twice" % (self.name, k))
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError("%s: missing input%s %s" % (
                self.name, "s" if len(missing) > 1 else "", ", ".join(missing)))
        return [values[n] for n in names]

    def _check_tensor(self, p, t):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor (declared %s), not %s" % (
                self.name, p["name"], _declared(p), type(t).__name__))
        want = _DTYPES[p["dtype"]]
        if t.dtype != want:
            raise TypeError("%s: %s is %s but is declared %s, which takes %s" % (
                self.name, p["name"], t.dtype, _declared(p), want))
        if t.device.type != "cpu":
            raise TypeError("%s: %s is on %s; TileKit kernels take CPU tensors" % (
                self.name, p["name"], t.device))
        if t.dim() != len(p["dims"]):
            raise ShapeError("%s: %s has %d dimensions %s but is declared %s" % (
                self.name, p["name"], t.dim(), tuple(t.shape), _declared(p)))

    def __call__(self, *args, **kwargs):
        values = self._bind(args, kwargs)
        tensors, scalars, dims = [], [], {}
        for p, v in zip(self.inputs, values):
            if not p["tensor"]:
                if isinstance(v, torch.Tensor):
                    v = v.item()
                if not isinstance(v, (int, float)):
                    raise TypeError("%s: scalar %s must be a number, not %s" % (
                        self.name, p["name"], type(v).__name__))
                scalars.append(float(v))
                continue
            self._check_tensor(p, v)
            v = v.detach().contiguous()
            for d, n in zip(p["dims"], v.shape):
                if isinstance(d, str):
                    dims.setdefault(d, n)  # a mismatch is run_cpu's to report
            tensors.append(v)
        outputs = []
        for p in self.outputs:
            unbound = [d for d in p["dims"] if isinstance(d, str) and d not in dims]
            if unbound:  # the checker binds every output dimension to an input's; kept honest
                raise ShapeError("%s: no input gives dimension %s of output %s" % (
                    self.name, unbound[0], _declared(p)))
            shape = [d if isinstance(d, int) else dims[d] for d in p["dims"]]
            outputs.append(torch.empty(shape, dtype=_DTYPES[p["dtype"]]))
        all_t = tensors + outputs
        data = (ctypes.c_void_p * len(all_t))(*[t.data_ptr() for t in all_t])
        shape = (ctypes.c_int64 * (3 * len(all_t)))()
        for i, t in enumerate(all_t):
            s = list(t.shape) if t.dim() == 3 else [1] + list(t.shape)
            shape[3 * i:3 * i + 3] = s
        sc = (ctypes.c_float * max(1, len(scalars)))(*scalars)
        err = ctypes.create_string_buffer(4096)
        if self.target == "tt":
            with _TT_LOCK:
                rc = self._fn(ctypes.c_void_p(_tilekit.tt_device()), data, shape, sc, err,
                              len(err))
        else:
            rc = self._fn(None, data, shape, sc, err, len(err))
        if rc == 1:
            raise ShapeError(err.value.decode(errors="replace"))
        if rc != 0:
            raise RuntimeError(err.value.decode(errors="replace"))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


class Module:
    """A compiled .tk file: `module.<kernel>` is a Kernel; `module.kernels` maps names to them."""

    def __init__(self, directory, meta):
        self.directory = directory
        self.target = meta["target"]
        self.warnings = meta["warnings"]
        self._lib = ctypes.CDLL(os.path.join(directory, "kernel.so"))
        self.kernels = {}
        for info in meta["kernels"]:
            fn = getattr(self._lib, "tkpy_" + info["name"])
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.c_char_p, ctypes.c_ulong]
            self.kernels[info["name"]] = Kernel(self, info, fn)

    def __getattr__(self, name):
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError("no kernel '%s' in this file (its kernels: %s)" % (
            name, ", ".join(kernels)))

    def __dir__(self):
        return list(super().__dir__()) + list(self.kernels)

    def __repr__(self):
        return "<tilekit module %s: %s>" % (self.target, ", ".join(self.kernels))
