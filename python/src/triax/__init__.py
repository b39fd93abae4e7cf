"""triax: batches of tridiagonal systems along any axis of N-D arrays, on CPUs and NVIDIA GPUs.

``triax.solve(a, b, c, d, axis=-1)`` solves ``a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i]``
along ``axis`` for every line of ``d``, for NumPy, PyTorch, CuPy and other DLPack arrays;
``triax.Solver`` is the same as a reusable plan; ``triax.solve_block`` and ``triax.BlockSolver``
solve block tridiagonal systems (M x M blocks); ``triax.FactoredSolver`` solves many systems
that share one matrix (and ``A x = B f`` for a ``triax.Stencil`` B) and ``triax.VarSolver``
batches of systems of different lengths;
:mod:`triax.autograd` makes solves differentiable in PyTorch and :mod:`triax.jax` in JAX.
"""
from ._api import (BlockSolver, Solver, cache_size, clear_cache, cuda_available, solve,
                   solve_block)
from ._errors import BreakdownError
from ._plans import FactoredSolver, VarSolver
from ._stencil import Stencil

__all__ = ["BlockSolver", "BreakdownError", "FactoredSolver", "Solver", "Stencil", "VarSolver",
           "cache_size", "clear_cache", "cuda_available", "solve", "solve_block"]
__version__ = "0.1.0"
