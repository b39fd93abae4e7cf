"""triax.Stencil: the banded operator B of :meth:`triax.FactoredSolver.solve_stencil` (the
library's ``triax::Stencil``, ``include/triax/stencil.hpp``)."""
from __future__ import annotations

import numpy as np


def _weights(values, shape, name):
    if values is None:
        return np.zeros(shape)
    w = np.array(values, dtype=np.float64)  # a copy: later edits of the caller's array stay out
    if w.shape != shape:
        raise ValueError(f"triax: Stencil {name} has shape {w.shape}; it takes {shape}")
    return w


class Stencil:
    """A five-point banded operator with its own first and last two rows, for solves of
    ``A x = B f`` (compact finite differences and filters): ``Stencil(interior=None, first=None,
    last=None)``, weights as float64 (rounded to the plan's dtype at each solve; omitted ones 0).

    Row ``i`` of ``B f`` along one system of ``n`` rows is

    - ``sum(interior[k + 2] * f[i + k] for k in -2..2)`` for ``2 <= i <= n - 3``;
    - ``sum(first[r][t] * f[t] for t in 0..4)`` for the first rows ``i = r = 0, 1``;
    - ``sum(last[r][t] * f[n - 1 - t] for t in 0..4)`` for the last rows ``i = n - 1 - r``
      (taps counted inward from the end).

    A row among both the first and the last two (``n <= 3``) takes the closure of its nearer
    edge, the first on a tie; taps past the line count as zero and are never read.

    >>> import numpy as np, triax
    >>> n, h = 64, 1 / 63                       # the fourth-order Pade first derivative
    >>> q, e = 3 / (4 * h), 1 / (2 * h)
    >>> B = triax.Stencil(interior=[0, -q, 0, q, 0],
    ...                   first=[[-5 * e, 4 * e, e, 0, 0], [-q, 0, q, 0, 0]],
    ...                   last=[[5 * e, -4 * e, -e, 0, 0], [q, 0, -q, 0, 0]])
    >>> a, b, c = np.full(n, 0.25), np.ones(n), np.full(n, 0.25)
    >>> c[0] = a[-1] = 2
    >>> f = np.sin(np.linspace(0, 1, n))[None, :].repeat(8, axis=0)
    >>> df = triax.FactoredSolver(a, b, c, f).solve_stencil(B, f)   # ~ cos along each row
    """

    def __init__(self, interior=None, first=None, last=None):
        self.interior = _weights(interior, (5,), "interior")
        self.first = _weights(first, (2, 5), "first")
        self.last = _weights(last, (2, 5), "last")

    def weights(self) -> list:
        """The 25 weights in the library's order: interior, first[0], first[1], last[0], last[1]."""
        for name in ("interior", "first", "last"):
            _weights(getattr(self, name), (5,) if name == "interior" else (2, 5), name)
        return [float(v) for v in np.concatenate(
            [np.ravel(self.interior), np.ravel(self.first), np.ravel(self.last)])]

    def __repr__(self) -> str:
        return (f"triax.Stencil(interior={self.interior.tolist()}, first={self.first.tolist()}, "
                f"last={self.last.tolist()})")
