"""triax.solve and triax.Solver: the arrays of any DLPack library in, the library's solve out."""
from __future__ import annotations

import functools
import sys
from typing import Any, Literal, Union

from . import _arrays, _core
from ._errors import BreakdownError

Check = Union[bool, Literal["raise", "return"]]

# The checked mode's three behaviours, from the `check` argument.
_UNCHECKED, _RAISE, _RETURN = 0, 1, 2


def _check_mode(check: Any) -> int:
    if not isinstance(check, str):
        return _RAISE if check else _UNCHECKED
    if check == "raise":
        return _RAISE
    if check == "return":
        return _RETURN
    raise ValueError(f"triax: check = {check!r}; expected False, True, 'raise' or 'return'")


def _output(fw, d, out, increment: bool):
    if out is not None:
        return out
    if increment:
        raise ValueError("triax: increment=True adds the solution to out, but out is None")
    return fw.empty_like(d)


def _info(fw, d, axis: int, mode: int, block: bool = False):
    """The checked mode's info array: one int32 per system, shaped like d without the axis (for
    block systems, like d's grid, d without its last axis, without the axis)."""
    if mode == _UNCHECKED:
        return None
    shape = tuple(d.shape)[:-1] if block else tuple(d.shape)
    if not -len(shape) <= axis < len(shape):
        return None  # the extension reports the axis
    axis %= len(shape)
    info = fw.empty_info(shape[:axis] + shape[axis + 1:], d)
    if 0 in shape or (block and 0 in tuple(d.shape)):
        info[...] = 0  # systems of no rows are solved; the extension has nothing to run
    return info


def _copy_if_reversed(x):
    strides, shape = getattr(x, "strides", None), getattr(x, "shape", ())
    if strides is not None and any(st < 0 and n > 1 for st, n in zip(strides, shape)):
        return _arrays.framework_of(x).contiguous(x)
    return x


def _call(fw, method, arrays, *rest) -> None:
    """Calls the extension with the exported arrays; inputs with negative strides, which
    triax's layouts cannot express, are copied once and the call repeated."""
    stream = rest[-1]
    if not fw.exports_as_is:
        # Inputs (a, b, c, d) with negative strides are copied before export: CuPy's DLPack
        # export of them reached the extension as an overflowing layout on the H100 instead of
        # the negative strides it detects. out is never copied: negative strides in out are
        # refused by the extension.
        arrays = [_copy_if_reversed(x) if i < 4 else x for i, x in enumerate(arrays)]
    try:
        if fw.exports_as_is:  # NumPy: the extension reads the arrays themselves
            method(*arrays, *rest)
        else:
            method(*[fw.export(x, stream) for x in arrays], *rest)
    except _core.NegativeStrideError as e:
        mask = e.args[0]
        arrays = [_arrays.framework_of(x).contiguous(x) if mask >> i & 1 else x
                  for i, x in enumerate(arrays)]
        method(*[fw.export(x, stream) for x in arrays], *rest)


def _finish(fw, out, info, mode: int):
    if mode == _UNCHECKED:
        return out
    if mode == _RETURN:
        return out, info
    host = fw.to_numpy(info)  # on the GPU this waits for the solve
    if host.any():
        raise BreakdownError(host)
    return out


def solve(a, b, c, d, axis: int = -1, out=None, increment: bool = False, check: Check = False):
    """Solves a batch of tridiagonal systems along one axis of an N-D array.

    Every 1-D line of ``d`` along ``axis`` is the right-hand side of one system::

        a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i],   i = 0 .. n-1

    with ``a[0]`` and ``c[n-1]`` never read.

    Parameters
    ----------
    a, b, c : arrays
        The sub-, main and super-diagonals, each of d's shape or broadcastable to it (NumPy's
        rule; a broadcast dimension is read with stride 0, nothing is copied). For example one
        matrix for every system along the last axis is ``a``, ``b``, ``c`` of shape ``(n,)``;
        a constant matrix is three 0-d arrays.
    d : array
        The right-hand sides; its shape is the shape of the solution. 1 to 8 dimensions.
    axis : int
        The axis the systems run along; negative counts from the end.
    out : array, optional
        Where the solution goes, of d's shape (any non-negative strides). ``None``: a new
        array like ``d`` from d's library. ``out=d`` solves in place.
    increment : bool
        Add the solution to ``out`` (``out += x``, what ADI schemes need) instead of storing it.
    check : bool or {'raise', 'return'}
        ``False``: no checking (a breakdown shows as inf/NaN in the solution). ``True`` or
        ``'raise'``: raise :class:`triax.BreakdownError`, which carries the per-system ``info``,
        if any system broke down (on the GPU this waits for the solve). ``'return'``: return
        ``(x, info)``, info an int32 array of d's library and device shaped like d without the
        axis (0 = fine, ``i + 1`` = row ``i`` broke down), without waiting.

    Returns
    -------
    The solution (``out`` when given), or ``(x, info)`` with ``check='return'``.

    Arrays may come from NumPy, PyTorch (CPU or CUDA), CuPy, or any library with the DLPack
    protocol; all must share one dtype (float32 or float64) and one device. CUDA arrays are
    solved on the current stream of their library (PyTorch's or CuPy's) and device, without
    copies and without waiting. Inputs with negative strides are copied first; any other
    strides are used as they are. The plan for each combination of dtype, device, shapes,
    strides, axis and check mode is made once and cached (:func:`triax.clear_cache`).
    PyTorch tensors that require grad are solved differentiably (:mod:`triax.autograd`).

    Raises
    ------
    TypeError
        Not an array, a dtype other than float32/float64, mixed dtypes or devices.
    ValueError
        Shapes that do not broadcast, an axis out of range, overlapping input and output, a
        read-only or broadcast ``out``, and every other argument the library rejects (its
        message names the argument and value).
    BreakdownError
        With ``check=True``, when a system broke down.
    RuntimeError
        CUDA arrays with a build of triax without CUDA, CUDA errors.

    Examples
    --------
    >>> import numpy as np, triax
    >>> d = np.ones((4, 5))
    >>> x = triax.solve(np.array(-1.0), np.array(4.0), np.array(-1.0), d, axis=1)
    """
    mode = _UNCHECKED if check is False else _check_mode(check)
    if "torch" in sys.modules and _arrays.torch_grad_needed((a, b, c, d)):
        from . import autograd

        return autograd.solve(a, b, c, d, axis, out, increment, mode)
    fw = _arrays.framework_of(d)
    if out is None:
        out = _output(fw, d, out, increment)
    info = None if mode == _UNCHECKED else _info(fw, d, axis, mode)
    _call(fw, _core.solve, (a, b, c, d, out), axis, bool(increment), mode != _UNCHECKED, info,
          fw.stream(d))
    return out if mode == _UNCHECKED else _finish(fw, out, info, mode)


def solve_block(a, b, c, d, axis: int = -1, out=None, increment: bool = False,
                check: Check = False):
    """Solves a batch of block tridiagonal systems along one axis of an N-D grid.

    Every line of the grid along ``axis`` is one system of M x M blocks::

        A[i] u[i-1] + B[i] u[i] + C[i] u[i+1] = d[i],   i = 0 .. n-1

    with ``A[0]`` and ``C[n-1]`` never read (M unknowns per grid point, as in the compressible
    flow equations; paper 000's block Thomas algorithm).

    Parameters
    ----------
    a, b, c : arrays
        The blocks, of shape ``(*grid, M, M)``: ``a[..., i, j]`` is row ``i``, column ``j`` of a
        block. They broadcast over the grid as NumPy does (one set of blocks for every system
        along the last grid axis is ``(n, M, M)``); any strides, nothing is copied.
    d : array
        The right-hand sides, of shape ``(*grid, M)``: a grid of 1 to 6 dimensions, M >= 1
        (M <= 8 on the GPU).
    axis : int
        The grid axis the systems run along; negative counts from the end of the grid (-1 is
        the axis before d's last).
    out, increment, check
        As for :func:`triax.solve`; ``info`` has the grid's shape without the axis.

    Returns
    -------
    The solution (``out`` when given), or ``(u, info)`` with ``check='return'``.

    The CPU and CUDA backends do not pivot: they need block diagonally dominant systems (or any
    whose pivot blocks have a stable LU without pivoting); a breakdown shows as inf/NaN, or in
    ``info`` with ``check``. Not differentiable: tensors that require grad are refused.

    Examples
    --------
    >>> import numpy as np, triax
    >>> n, m = 6, 3
    >>> a = np.tile(-np.eye(m), (n, 1, 1)); b = np.tile(4 * np.eye(m), (n, 1, 1)); c = a
    >>> u = triax.solve_block(a, b, c, np.ones((n, m)), axis=0)
    """
    mode = _UNCHECKED if check is False else _check_mode(check)
    if "torch" in sys.modules and _arrays.torch_grad_needed((a, b, c, d)):
        raise TypeError("triax.solve_block is not differentiable; detach the tensors that "
                        "require grad (triax.solve is, for scalar systems)")
    fw = _arrays.framework_of(d)
    if out is None:
        out = _output(fw, d, out, increment)
    info = None if mode == _UNCHECKED else _info(fw, d, axis, mode, block=True)
    _call(fw, functools.partial(_core.solve, block=True), (a, b, c, d, out), axis,
          bool(increment), mode != _UNCHECKED, info, fw.stream(d))
    return out if mode == _UNCHECKED else _finish(fw, out, info, mode)


class Solver:
    """A plan made once for arrays like these, used many times: ``plan(a, b, c, d, out)``.

    ``Solver(a, b, c, d, axis=-1, out=None, increment=False, check=False)`` takes the arguments
    of :func:`triax.solve` and makes a plan for arrays of their dtype, device, shapes and
    strides; calling it solves with such arrays (the data may differ every call), and raises
    ValueError for arrays that do not fit, naming what differs. Unlike :func:`triax.solve` it
    never looks anything up in a cache, and it owns its workspace, so one Solver per thread
    lets threads solve at once (calls on one Solver from several threads take turns).

    A Solver is not differentiable; for autograd call :func:`triax.solve`.
    """

    _block = False

    def __init__(self, a, b, c, d, axis: int = -1, out=None, increment: bool = False,
                 check: Check = False):
        self._mode = _check_mode(check)
        self._increment = bool(increment)
        self._fw = _arrays.framework_of(d)
        out = _output(self._fw, d, out, increment)
        plans = []

        def make(*args):
            plans.append(_core.Plan(*args, block=self._block))

        _call(self._fw, make, (a, b, c, d, out), axis, self._mode != _UNCHECKED,
              self._fw.stream(d))
        self._plan = plans[-1]

    def __call__(self, a, b, c, d, out=None):
        """Solves with this plan; returns what :func:`triax.solve` returns."""
        fw = self._fw
        if out is None:
            out = _output(fw, d, out, self._increment)
        mode = self._mode
        info = None if mode == _UNCHECKED else _info(fw, d, self._plan.axis, mode, self._block)
        _call(fw, self._plan.run, (a, b, c, d, out), self._increment, info, fw.stream(d))
        return out if mode == _UNCHECKED else _finish(fw, out, info, mode)

    @property
    def algorithm(self) -> str:
        """The library's algorithm for this plan, e.g. ``'cpu_thomas'``."""
        return self._plan.algorithm

    @property
    def backend(self) -> str:
        """``'cpu'`` or ``'cuda'``."""
        return self._plan.backend

    @property
    def axis(self) -> int:
        """The solve axis, counted from 0."""
        return self._plan.axis

    @property
    def system_length(self) -> int:
        """Rows per system: d's extent along the axis."""
        return self._plan.system_length

    @property
    def system_count(self) -> int:
        """The number of systems: d's size over the system length."""
        return self._plan.system_count

    @property
    def workspace_bytes(self) -> int:
        """Bytes of workspace the plan owns (device memory on the GPU)."""
        return self._plan.workspace_bytes

    def __repr__(self) -> str:
        return (f"triax.{type(self).__name__}(backend={self.backend!r}, "
                f"algorithm={self.algorithm!r}, axis={self.axis}, "
                f"systems={self.system_count} x {self.system_length} rows)")


class BlockSolver(Solver):
    """A plan for block tridiagonal systems, as :class:`Solver` is for scalar ones:
    ``BlockSolver(a, b, c, d, axis=-1, out=None, increment=False, check=False)`` takes the
    arguments of :func:`triax.solve_block` (blocks of shape ``(*grid, M, M)``, vectors of shape
    ``(*grid, M)``, ``axis`` counting the grid's axes) and is called as ``plan(a, b, c, d, out)``.
    """

    _block = True

    @property
    def block_size(self) -> int:
        """M, the size of the blocks."""
        return self._plan.block_size


def clear_cache() -> None:
    """Drops every plan :func:`triax.solve` cached (and its workspace, device memory on the
    GPU). The cache keeps at most 64 plans, dropping the oldest."""
    _core.clear_cache()


def cache_size() -> int:
    """The number of plans in :func:`triax.solve`'s cache."""
    return _core.cache_size()


def cuda_available() -> bool:
    """Whether this build of triax has the CUDA backend (not whether a GPU is present)."""
    return _core.cuda_compiled()
