"""Differentiable solves in PyTorch: :class:`TridiagonalSolve`, a ``torch.autograd.Function``.

:func:`triax.solve` uses it by itself when PyTorch is recording and a tensor among a, b, c, d
requires grad. For ``A x = d`` with A tridiagonal and an upstream gradient ``g`` of x:

* ``grad_d = A^-T g``: one more triax solve, with the transposed matrix, whose sub-diagonal is
  ``c`` moved down one row and whose super-diagonal is ``a`` moved up one row;
* ``grad_a[i] = -grad_d[i] x[i-1]``, ``grad_b[i] = -grad_d[i] x[i]``,
  ``grad_c[i] = -grad_d[i] x[i+1]`` (``grad_a[0] = grad_c[n-1] = 0``: never read);
* each summed over the dimensions its input was broadcast along.

The backward pass is itself made of differentiable operations, so second derivatives work too.
"""
from __future__ import annotations

import torch

from . import _api


def _aligned(t: torch.Tensor, ndim: int) -> torch.Tensor:
    """t with leading dimensions of extent 1 up to ndim (NumPy's broadcasting alignment)."""
    return t.reshape((1,) * (ndim - t.dim()) + tuple(t.shape)) if t.dim() < ndim else t


def _shifted(t: torch.Tensor, shift: int, axis: int, ndim: int) -> torch.Tensor:
    """t moved `shift` rows along the axis. The row that wraps around lands where the solve
    never reads (a[0] or c[n-1]); a diagonal broadcast along the axis is the same moved."""
    t = _aligned(t, ndim)
    return t if t.shape[axis] == 1 else torch.roll(t, shift, axis)


def _zero_row(like: torch.Tensor, axis: int) -> torch.Tensor:
    shape = list(like.shape)
    shape[axis] = 1
    return like.new_zeros(shape)


class TridiagonalSolve(torch.autograd.Function):
    """``x, info = TridiagonalSolve.apply(a, b, c, d, axis, checked)``.

    ``info`` is an int32 tensor (one value per system, empty unless ``checked``) and carries no
    gradient. Broadcasting, dtypes and devices are as in :func:`triax.solve`.
    """

    @staticmethod
    def forward(ctx, a, b, c, d, axis: int, checked: bool):
        if checked:
            x, info = _api.solve(a, b, c, d, axis=axis, check="return")
        else:
            x = _api.solve(a, b, c, d, axis=axis)
            info = torch.empty(0, dtype=torch.int32, device=x.device)
        ctx.axis = axis % x.dim()
        ctx.shapes = tuple(tuple(t.shape) for t in (a, b, c, d))
        ctx.save_for_backward(a, b, c, x)
        ctx.mark_non_differentiable(info)
        return x, info

    @staticmethod
    def backward(ctx, grad_x, grad_info):
        a, b, c, x = ctx.saved_tensors
        axis, ndim = ctx.axis, x.dim()
        need_a, need_b, need_c, _need_d = ctx.needs_input_grad[:4]
        # A^T: sub-diagonal c[i-1], super-diagonal a[i+1].
        grad_d, _ = TridiagonalSolve.apply(
            _shifted(c, 1, axis, ndim), b, _shifted(a, -1, axis, ndim), grad_x, axis, False)
        n = x.shape[axis]
        grad_a = grad_b = grad_c = None
        if need_a:
            inner = -grad_d.narrow(axis, 1, n - 1) * x.narrow(axis, 0, n - 1)
            grad_a = torch.cat([_zero_row(x, axis), inner], axis).sum_to_size(ctx.shapes[0])
        if need_b:
            grad_b = (-grad_d * x).sum_to_size(ctx.shapes[1])
        if need_c:
            inner = -grad_d.narrow(axis, 0, n - 1) * x.narrow(axis, 1, n - 1)
            grad_c = torch.cat([inner, _zero_row(x, axis)], axis).sum_to_size(ctx.shapes[2])
        grad_d = grad_d.sum_to_size(ctx.shapes[3]) if ctx.needs_input_grad[3] else None
        return grad_a, grad_b, grad_c, grad_d, None, None


def solve(a, b, c, d, axis: int, out, increment: bool, mode: int):
    """triax.solve's path for tensors that require grad (mode: _api's checked-mode value)."""
    # Arrays of other libraries among the tensors are constants of the graph: as tensors.
    ref = next(t for t in (a, b, c, d) if isinstance(t, torch.Tensor))
    a, b, c, d = (t if isinstance(t, torch.Tensor)
                  else torch.as_tensor(t, dtype=ref.dtype, device=ref.device) for t in (a, b, c, d))
    x, info = TridiagonalSolve.apply(a, b, c, d, axis, mode != _api._UNCHECKED)
    if mode == _api._RAISE and bool(info.any()):
        raise _api.BreakdownError(info.cpu().numpy())
    if out is not None:
        x = out.add_(x) if increment else out.copy_(x)
    elif increment:
        raise ValueError("triax: increment=True adds the solution to out, but out is None")
    return (x, info) if mode == _api._RETURN else x
