"""What triax needs from each array library, through that library's own calls: a new array
like ``d`` (``out=None``), the checked mode's ``info`` array, the stream its work is ordered on,
the arrays to hand to the extension, and contiguous copies (for negative strides)."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np


class _NumPy:
    exports_as_is = True

    def empty_like(self, d):
        return np.empty_like(d)

    def empty_info(self, shape, d):
        return np.empty(shape, np.int32)

    def to_numpy(self, x):
        return x

    def stream(self, d) -> int:
        return 0

    def export(self, x, stream):
        return x

    def contiguous(self, x):
        return np.ascontiguousarray(x)


class _OtherCpu(_NumPy):
    """Other CPU arrays (DLPack or the array interface, no namespace): new arrays from NumPy."""

    def empty_like(self, d):
        return np.empty_like(np.from_dlpack(d) if hasattr(d, "__dlpack__") else np.asarray(d))

    def contiguous(self, x):
        return np.ascontiguousarray(np.from_dlpack(x) if hasattr(x, "__dlpack__") else x)


class _Torch:
    exports_as_is = False

    def __init__(self):
        import torch

        self.torch = torch

    def empty_like(self, d):
        return self.torch.empty_like(d)

    def empty_info(self, shape, d):
        return self.torch.empty(shape, dtype=self.torch.int32, device=d.device)

    def to_numpy(self, x):
        return x.cpu().numpy()

    def stream(self, d) -> int:
        # The solve joins the work PyTorch orders on the tensor's device: its current stream.
        if d.is_cuda:
            return self.torch.cuda.current_stream(d.device).cuda_stream
        return 0

    def export(self, x, stream):
        # PyTorch exports no tensor that requires grad; the differentiable path is
        # triax.autograd, which calls here with inputs it has already recorded.
        return x.detach() if isinstance(x, self.torch.Tensor) and x.requires_grad else x

    def contiguous(self, x):
        return x.contiguous()


class _CuPy:
    exports_as_is = False

    def __init__(self):
        import cupy

        self.cupy = cupy

    def empty_like(self, d):
        with d.device:
            return self.cupy.empty_like(d)

    def empty_info(self, shape, d):
        with d.device:
            return self.cupy.empty(shape, self.cupy.int32)

    def to_numpy(self, x):
        return self.cupy.asnumpy(x)

    def stream(self, d) -> int:
        with d.device:
            return self.cupy.cuda.get_current_stream().ptr

    def export(self, x, stream):
        # Handing CuPy the stream the solve runs on spares it a needless wait on the legacy
        # default stream (DLPack: 1 names that stream, 0 is not allowed).
        if isinstance(x, self.cupy.ndarray):
            return x.__dlpack__(stream=stream or 1)
        return x

    def contiguous(self, x):
        return self.cupy.ascontiguousarray(x)


class _ArrayApi:
    """Any other library with ``__array_namespace__`` (CPU, or CUDA on its default stream)."""

    exports_as_is = True

    def empty_like(self, d):
        return d.__array_namespace__().empty_like(d)

    def empty_info(self, shape, d):
        xp = d.__array_namespace__()
        return xp.empty(shape, dtype=xp.int32, device=d.device)

    def to_numpy(self, x):
        return np.from_dlpack(x)

    def stream(self, d) -> int:
        return 0

    def export(self, x, stream):
        return x

    def contiguous(self, x):
        xp = x.__array_namespace__()
        return xp.asarray(x, copy=True)


_numpy = _NumPy()
_adapters: dict[str, Any] = {}


def framework_of(d):
    """The adapter for ``d``'s array library."""
    if isinstance(d, np.ndarray):
        return _numpy
    module = type(d).__module__.split(".", 1)[0]
    adapter = _adapters.get(module)
    if adapter is None:
        if module == "torch":
            adapter = _Torch()
        elif module == "cupy":
            adapter = _CuPy()
        elif hasattr(d, "__array_namespace__"):
            adapter = _ArrayApi()
        elif hasattr(d, "__dlpack__") or hasattr(d, "__array_interface__"):
            adapter = _OtherCpu()
        else:
            raise TypeError(
                f"triax: d of type {type(d).__module__}.{type(d).__qualname__} is not an array "
                f"with the DLPack protocol (__dlpack__) or the buffer protocol")
        _adapters[module] = adapter
    return adapter


def torch_grad_needed(arrays) -> bool:
    """Whether PyTorch is recording and some array is a tensor that requires grad."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.is_grad_enabled():
        return False
    return any(isinstance(x, torch.Tensor) and x.requires_grad for x in arrays)
