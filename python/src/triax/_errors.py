"""The exception for numerical breakdown found by the checked mode (``check=True``)."""
from __future__ import annotations

import numpy as np


class BreakdownError(ArithmeticError):
    """Some systems broke down: a zero or non-finite pivot, or a non-finite solution.

    Raised by :func:`triax.solve` and :class:`triax.Solver` with ``check=True``, after the
    solve: the output holds every system's result (inf or NaN where a system broke down).

    Attributes
    ----------
    info : numpy.ndarray of int32
        One value per system, shaped like ``d`` without the solve axis, LAPACK style: 0 = the
        system was solved with finite pivots and results; ``i + 1`` = row ``i`` is where it
        broke down.
    """

    def __init__(self, info: np.ndarray):
        self.info = info
        failed = np.flatnonzero(info)
        first = tuple(int(i) for i in np.unravel_index(failed[0], info.shape))
        row = int(info.reshape(-1)[failed[0]]) - 1
        super().__init__(
            f"triax: {failed.size} of {info.size} systems broke down; the first is system "
            f"{first} (the index of d without the solve axis), at row {row}; "
            f"the info attribute has every system's status")
