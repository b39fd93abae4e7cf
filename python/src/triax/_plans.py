"""triax.FactoredSolver (one matrix, many right-hand sides) and triax.VarSolver (systems of
different lengths in one batch): plans over the library's FactoredSolver and VarSolver."""
from __future__ import annotations

import numpy as np

from . import _arrays, _core
from ._api import _UNCHECKED, Check, _call, _check_mode, _copy_if_reversed, _finish, _info, _output
from ._stencil import Stencil


def _host(x, dtype, name, flatten=False):
    """x as a contiguous 1-D NumPy array of dtype (host copies are small: one system's
    diagonals, or one value per system); `flatten` takes any shape in C order."""
    if hasattr(x, "__dlpack__") and not isinstance(x, np.ndarray):
        x = _arrays.framework_of(x).to_numpy(x)
    x = np.ascontiguousarray(np.asarray(x), dtype=dtype)
    if flatten:
        x = x.reshape(-1)
    if x.ndim != 1:
        raise ValueError(f"triax: {name} must be 1-D, not of shape {x.shape}")
    return x


def _matrices(a, b, c, dtype, d_shape, axis):
    """a, b, c as flat host copies, and the coefficients' shape: [] for one matrix (1-D
    diagonals; anything but three arrays of d's rank > 1 is taken as that, and refused unless
    1-D), else the three broadcast to one common shape of d's rank
    (extent-1 axes stay 1, so nothing is expanded, except along the axis, where a, b, c need n
    values), in C order."""
    def host(t):
        if hasattr(t, "__dlpack__") and not isinstance(t, np.ndarray):
            t = _arrays.framework_of(t).to_numpy(t)
        return np.asarray(t)
    ts = [host(t) for t in (a, b, c)]
    ndim = len(d_shape)
    if ndim == 1 or any(t.ndim != ndim for t in ts):
        return (*(_host(t, dtype, name) for t, name in zip(ts, "abc")), [])
    shape = list(np.broadcast_shapes(*(t.shape for t in ts)))
    if -ndim <= axis < ndim and shape[axis] == 1:
        shape[axis] = d_shape[axis]  # constant diagonals along the axis: expanded (n values)
    flat = [np.ascontiguousarray(np.broadcast_to(t, shape), dtype=dtype).reshape(-1) for t in ts]
    return (*flat, [int(e) for e in shape])


def _call_vectors(fw, method, d, out, *rest):
    """Calls the extension with d and out alone (a factored plan's operands): d is copied if it
    has negative strides (out with negative strides is refused by the extension)."""
    d = _copy_if_reversed(d)
    if fw.exports_as_is:
        method(d, out, *rest)
    else:
        stream = rest[-1]
        method(fw.export(d, stream), fw.export(out, stream), *rest)


class FactoredSolver:
    """A plan for many systems that share one tridiagonal matrix: factored once, then each call
    reads only d and writes x (two arrays of traffic instead of five).

    ``FactoredSolver(a, b, c, d, axis=-1, out=None, increment=False, check=False,
    algorithm="automatic")``: ``a``, ``b``, ``c`` are the one matrix's diagonals, 1-D of length
    ``n`` (d's extent along ``axis``; any array library, copied once; ``a[0]`` and ``c[n-1]``
    are never read), or arrays of d's rank that broadcast to d's shape (length ``n`` along
    ``axis``, or 1 for constant diagonals; each other axis d's extent or 1): one matrix per group
    of systems, the systems
    that differ only along axes of extent 1 sharing one (at most 4096 groups;
    :attr:`group_count`). ``algorithm`` names the factored algorithm as the library's
    ``to_string(FactoredAlgorithm)`` does: ``"automatic"``, ``"cpu_thomas"``, ``"cpu_cr"``,
    ``"cuda_thread_thomas"``, ``"cuda_block_cr_shared"``, ``"cuda_block_cr_global"``,
    ``"cuda_hybrid"``; ``d``
    and ``out`` give the dtype, device, shape and strides of the right-hand sides and solutions
    the plan takes. Call it as ``plan(d, out=None)``; it returns what :func:`triax.solve`
    returns. A matrix whose factors converge (near-Toeplitz, e.g. compact finite differences) is
    stored in O(1) rows (:attr:`stored_rows`). A zero or non-finite pivot does not raise here:
    :attr:`factor_info` is row + 1, every solve writes NaN, and ``check`` reports it for every
    system.

    >>> import numpy as np, triax
    >>> n = 64; d = np.random.rand(32, n)
    >>> plan = triax.FactoredSolver(np.full(n, 0.25), np.ones(n), np.full(n, 0.25), d)
    >>> x = plan(d)
    """

    def __init__(self, a, b, c, d, axis: int = -1, out=None, increment: bool = False,
                 check: Check = False, algorithm: str = "automatic"):
        self._mode = _check_mode(check)
        self._increment = bool(increment)
        self._fw = _arrays.framework_of(d)
        dtype = np.dtype(str(d.dtype).replace("torch.", ""))
        a, b, c, shape = _matrices(a, b, c, dtype, tuple(d.shape), axis)
        out = _output(self._fw, d, out, increment)
        plans = []

        def make(d_, out_, *rest):
            plans.append(_core.FactoredPlan(a, b, c, d_, out_, *rest, shape, str(algorithm)))

        _call_vectors(self._fw, make, d, out, axis, self._mode != _UNCHECKED, self._fw.stream(d))
        self._plan = plans[-1]

    def __call__(self, d, out=None):
        """Solves every system of d with the plan's matrix; returns x (or ``(x, info)``)."""
        fw = self._fw
        if out is None:
            out = _output(fw, d, out, self._increment)
        mode = self._mode
        info = None if mode == _UNCHECKED else _info(fw, d, self._plan.axis, mode)
        _call_vectors(fw, self._plan.run, d, out, self._increment, info, fw.stream(d))
        return out if mode == _UNCHECKED else _finish(fw, out, info, mode)

    def solve_stencil(self, stencil: Stencil, f, out=None):
        """Solves ``A x = B f`` for every system: ``B`` a :class:`triax.Stencil` applied to f
        along the axis (e.g. a compact finite difference), f laid out as the plan's d (same
        dtype, device, shape and strides; read inside each system's rows only), x into ``out``
        (the plan's out; a new array if None). f and out must be separate arrays. Returns x (or
        ``(x, info)``, as the plan's ``check`` says). Where :attr:`fuses_stencil`, ``B f`` is
        formed inside the solve (f read once, x written once); elsewhere the plan writes it into
        a workspace laid out as d (made at the first call, then kept) and solves from there. A
        plan made with ``increment=True`` refuses it (it writes x, it does not add to out)."""
        if not isinstance(stencil, Stencil):
            raise TypeError("triax: FactoredSolver.solve_stencil takes a triax.Stencil, not "
                            f"{type(stencil).__name__}")
        if self._increment:
            raise ValueError("triax: FactoredSolver.solve_stencil writes x; this plan was made "
                             "with increment=True (make one without it)")
        if f is None:
            raise TypeError("triax: FactoredSolver.solve_stencil: f is None")
        fw = self._fw
        if out is None:
            out = _output(fw, f, out, False)
        mode = self._mode
        info = None if mode == _UNCHECKED else _info(fw, f, self._plan.axis, mode)
        _call_vectors(fw, self._plan.run_stencil, f, out, stencil.weights(), info, fw.stream(f))
        return out if mode == _UNCHECKED else _finish(fw, out, info, mode)

    backend = property(lambda self: self._plan.backend, doc="``'cpu'`` or ``'cuda'``.")
    fuses_stencil = property(lambda self: self._plan.fuses_stencil,
                             doc="Whether :meth:`solve_stencil` forms B f inside the solve "
                                 "(the CUDA chunk table route) rather than in a workspace.")
    axis = property(lambda self: self._plan.axis, doc="The solve axis, counted from 0.")
    system_length = property(lambda self: self._plan.system_length, doc="Rows per system.")
    system_count = property(lambda self: self._plan.system_count, doc="Systems per solve.")
    stored_rows = property(lambda self: self._plan.stored_rows,
                           doc="Factor rows the plan keeps (the limit counts once).")
    compressed = property(lambda self: self._plan.compressed,
                          doc="Whether converged factor rows are stored once.")
    factor_info = property(lambda self: self._plan.factor_info,
                           doc="0, or row + 1 of the first zero or non-finite pivot.")
    workspace_bytes = property(lambda self: self._plan.workspace_bytes,
                               doc="Bytes the plan owns (device memory on the GPU).")
    algorithm = property(lambda self: self._plan.algorithm,
                         doc="The algorithm that runs (never ``'automatic'``).")
    group_count = property(lambda self: self._plan.group_count,
                           doc="Groups of systems with a matrix of their own (1: one matrix).")

    def __repr__(self) -> str:
        return (f"triax.FactoredSolver(backend={self.backend!r}, axis={self.axis}, "
                f"algorithm={self.algorithm!r}, groups={self.group_count}, "
                f"systems={self.system_count} x {self.system_length} rows, "
                f"stored_rows={self.stored_rows})")


class VarSolver:
    """A plan for a batch of systems of different lengths (paper 002's variable batches).

    ``VarSolver(lengths, a, b, c, d, offsets=None, axis=None, out=None, increment=False,
    check=False)``:

    - ``axis=None``, back to back: ``a``, ``b``, ``c``, ``d`` (and ``out``) are 1-D arrays
      with unit stride; system ``s`` is rows ``offsets[s] .. offsets[s] + lengths[s] - 1`` of
      each (``offsets=None``: the systems one after another from 0). Gaps between systems are
      never touched; systems may not share elements.
    - ``axis=k``, padded: the arrays are a fixed-size batch along ``axis`` (any layout, as
      :func:`triax.solve` takes it); system ``s`` (in the order of ``info``: d's other axes,
      C order) solves its first ``lengths[s]`` rows; the rows past them are neither read nor
      written.

    ``lengths`` (and ``offsets``) are host integer sequences, fixed with the plan. Call it as
    ``plan(a, b, c, d, out=None)``; ``info`` (``check``) has one entry per system.
    """

    def __init__(self, lengths, a, b, c, d, offsets=None, axis=None, out=None,
                 increment: bool = False, check: Check = False):
        self._mode = _check_mode(check)
        self._increment = bool(increment)
        self._fw = _arrays.framework_of(d)
        lengths = _host(lengths, np.int64, "lengths", flatten=True)
        offsets = None if offsets is None else _host(offsets, np.int64, "offsets")
        out = _output(self._fw, d, out, increment)
        plans = []
        back_to_back = axis is None

        def make(*args):
            plans.append(_core.VarPlan(lengths, offsets, *args))

        _call(self._fw, make, (a, b, c, d, out), 0 if back_to_back else axis, back_to_back,
              self._mode != _UNCHECKED, self._fw.stream(d))
        self._plan = plans[-1]

    def __call__(self, a, b, c, d, out=None):
        """Solves every system; returns x (or ``(x, info)``)."""
        fw = self._fw
        if out is None:
            out = _output(fw, d, out, self._increment)
        mode = self._mode
        info = None if mode == _UNCHECKED else fw.empty_info((self._plan.system_count,), d)
        _call(fw, self._plan.run, (a, b, c, d, out), self._increment, info, fw.stream(d))
        return out if mode == _UNCHECKED else _finish(fw, out, info, mode)

    backend = property(lambda self: self._plan.backend, doc="``'cpu'`` or ``'cuda'``.")
    system_count = property(lambda self: self._plan.system_count, doc="Systems per solve.")
    total_rows = property(lambda self: self._plan.total_rows,
                          doc="The sum of the lengths: the rows a solve reads and writes.")
    max_length = property(lambda self: self._plan.max_length, doc="The longest system.")
    workspace_bytes = property(lambda self: self._plan.workspace_bytes,
                               doc="Bytes the plan owns (device memory on the GPU).")

    def __repr__(self) -> str:
        form = "back to back" if self._plan.back_to_back else f"padded, axis={self._plan.axis}"
        return (f"triax.VarSolver(backend={self.backend!r}, {form}, "
                f"systems={self.system_count}, rows={self.total_rows})")
