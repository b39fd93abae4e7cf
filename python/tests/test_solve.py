"""triax.solve on NumPy arrays against scipy.linalg.solve_banded."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, banded_solve, random_system

SHAPES = [(1,), (2,), (33,), (5, 1), (7, 9), (3, 4, 5), (2, 3, 1, 6), (4, 3, 2, 5)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_axis(rng, shape, dtype):
    a, b, c, d = random_system(rng, shape, dtype)
    for axis in range(len(shape)):
        x = triax.solve(a, b, c, d, axis=axis)
        assert x.dtype == dtype and x.shape == d.shape
        assert_solves(x, a, b, c, d, axis)
        # The same axis counted from the end.
        np.testing.assert_array_equal(triax.solve(a, b, c, d, axis=axis - len(shape)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_systems(rng, dtype):
    a, b, c, d = random_system(rng, (3, 20000), dtype)
    assert_solves(triax.solve(a, b, c, d), a, b, c, d, -1)


def test_inputs_untouched(rng):
    arrays = random_system(rng, (6, 7))
    copies = [t.copy() for t in arrays]
    triax.solve(*arrays, axis=0)
    for t, t0 in zip(arrays, copies):
        np.testing.assert_array_equal(t, t0)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_views_with_odd_strides(rng, axis):
    # Every operand a different non-contiguous view of a larger array.
    big = [rng.uniform(-1, 1, (9, 13, 11)) for _ in range(4)]
    big[1] = 3.5 + 0.1 * big[1]  # the main diagonal, dominant
    a = big[0][1::2, 1::3, 2:9]
    b = big[1][::2, 2::3, 1:8][:4]
    c = big[2][1::2, :12:3, 1:8]
    d = big[3][::2, ::3, 3:10][:4, :4]
    out_base = np.full((8, 13, 15), 7.0)
    out = out_base[1::2, :12:3, 2:9]  # out is a view too
    assert a.shape == b.shape == c.shape == d.shape == out.shape
    assert not out.flags.c_contiguous
    result = triax.solve(a, b, c, d, axis=axis, out=out)
    assert result is out
    assert_solves(out, a, b, c, d, axis)
    # Nothing outside the view was written.
    mask = np.ones(out_base.shape, bool)
    mask[1::2, :12:3, 2:9] = False
    assert (out_base[mask] == 7.0).all()


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_transposed_and_fortran_order(rng, axis):
    a, b, c, d = (np.asfortranarray(t) for t in random_system(rng, (4, 6, 5)))
    assert_solves(triax.solve(a, b, c, d, axis=axis), a, b, c, d, axis)
    a, b, c, d = (t.transpose(2, 0, 1) for t in random_system(rng, (4, 6, 5)))
    assert_solves(triax.solve(a, b, c, d, axis=axis), a, b, c, d, axis)


def test_negative_strides_are_copied(rng):
    a, b, c, d = random_system(rng, (5, 8))
    x = triax.solve(a[::-1], b[:, ::-1], c[::-1, ::-1], d[::-1], axis=1)
    assert_solves(x, a[::-1], b[:, ::-1], c[::-1, ::-1], d[::-1], 1)
    # d reversed along the solve axis itself.
    x = triax.solve(a, b, c, d[:, ::-1], axis=1)
    assert_solves(x, a, b, c, d[:, ::-1], 1)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_broadcast_coefficients(rng, axis):
    shape = (4, 5, 6)
    d = rng.uniform(-1, 1, shape)
    n = shape[axis]
    along = [1, 1, 1]
    along[axis] = n
    # One matrix for every system: diagonals that vary along the axis only.
    a, b, c, _ = random_system(rng, (n,))
    a, b, c = (t.reshape(along) for t in (a, b, c))
    assert_solves(triax.solve(a, b, c, d, axis=axis), a, b, c, d, axis)
    # A constant matrix: 0-d diagonals, and a mix of shapes.
    x = triax.solve(np.array(-1.0), np.array(4.0), np.array(-1.5), d, axis=axis)
    assert_solves(x, -1.0, 4.0, -1.5, d, axis)
    b_rows = rng.uniform(3, 4, shape[-1:])  # (6,): broadcast over the leading dimensions
    x = triax.solve(np.array(0.5), b_rows, np.full((1, 1, 1), -0.5), d, axis=axis)
    assert_solves(x, 0.5, b_rows, -0.5, d, axis)
    # np.broadcast_to gives read-only stride-0 views: they are read as they are.
    x = triax.solve(np.broadcast_to(np.array(-1.0), shape), np.broadcast_to(b_rows, shape),
                    np.broadcast_to(np.array(-1.0), shape), d, axis=axis)
    assert_solves(x, -1.0, b_rows, -1.0, d, axis)


def test_broadcast_right_hand_side(rng):
    # d itself broadcast (stride 0): fine as an input when the output is another array.
    a, b, c, _ = random_system(rng, (3, 7))
    d_row = rng.uniform(-1, 1, 7)
    d = np.broadcast_to(d_row, (3, 7))
    assert_solves(triax.solve(a, b, c, d, axis=1), a, b, c, d, 1)


def test_in_place(rng):
    a, b, c, d = random_system(rng, (6, 5))
    expected = banded_solve(a, b, c, d, 0)
    result = triax.solve(a, b, c, d, axis=0, out=d)
    assert result is d
    np.testing.assert_allclose(d, expected, rtol=0, atol=1e-13)
    # In place on a strided view of a larger array.
    a, b, c, base = random_system(rng, (8, 10))
    view = base[::2, 1::2]
    expected = banded_solve(a[::2, 1::2], b[::2, 1::2], c[::2, 1::2], view, 1)
    triax.solve(a[::2, 1::2], b[::2, 1::2], c[::2, 1::2], view, axis=1, out=view)
    np.testing.assert_allclose(view, expected, rtol=0, atol=1e-13)


def test_out_and_increment(rng):
    a, b, c, d = random_system(rng, (4, 9))
    expected = banded_solve(a, b, c, d, 1)
    out = np.empty_like(d)
    assert triax.solve(a, b, c, d, axis=1, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)
    u = rng.uniform(-1, 1, d.shape)
    u0 = u.copy()
    assert triax.solve(a, b, c, d, axis=1, out=u, increment=True) is u
    np.testing.assert_allclose(u, u0 + expected, rtol=0, atol=1e-13)
    # Increment into a transposed view.
    ut = np.zeros((9, 4)).T
    triax.solve(a, b, c, d, axis=1, out=ut, increment=True)
    np.testing.assert_allclose(ut, expected, rtol=0, atol=1e-13)


def test_float32(rng):
    a, b, c, d = random_system(rng, (16, 31), np.float32)
    x = triax.solve(a, b, c, d, axis=1)
    assert x.dtype == np.float32
    assert_solves(x, a, b, c, d, 1)


def test_single_row_and_empty(rng):
    # n = 1: x = d / b.
    b = rng.uniform(3, 4, (5, 1))
    d = rng.uniform(-1, 1, (5, 1))
    x = triax.solve(np.zeros_like(b), b, np.zeros_like(b), d, axis=1)
    np.testing.assert_allclose(x, d / b, rtol=4 * np.finfo(float).eps)
    # Empty arrays, along an empty and a non-empty axis: nothing to solve, nothing written.
    for shape, axis in [((0, 4), 0), ((0, 4), 1), ((3, 0), 1)]:
        e = np.zeros(shape)
        assert triax.solve(e, e + 1, e, e, axis=axis).shape == shape
        x, info = triax.solve(e, e + 1, e, e, axis=axis, check="return")
        assert info.shape == shape[:axis] + shape[axis + 1:]
        assert (info == 0).all()


def test_other_dlpack_arrays_on_the_cpu(rng):
    # A read-only d: NumPy exports it only as a read-only (versioned) DLPack tensor.
    a, b, c, d = random_system(rng, (3, 6))
    d.flags.writeable = False
    x = triax.solve(a, b, c, d)
    assert_solves(x, a, b, c, d, -1)


def test_threads_share_the_cache(rng):
    # Solves from many threads on one cached plan take turns (the library allows one solve at a
    # time per plan) and every result is right.
    from concurrent.futures import ThreadPoolExecutor

    systems = [random_system(rng, (64, 300)) for _ in range(16)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda s: triax.solve(*s, axis=1), systems * 4))
    for s, x in zip(systems * 4, results):
        assert_solves(x, *s, 1)


def test_a_plain_dlpack_producer(rng):
    # An object with only __dlpack__ / __dlpack_device__: read zero copy, x made by NumPy.
    a, b, c, d = random_system(rng, (4, 5))

    class Producer:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    x = triax.solve(Producer(a), Producer(b), Producer(c), Producer(d))
    assert isinstance(x, np.ndarray)
    assert_solves(x, a, b, c, d, -1)
    out = np.zeros_like(d)
    triax.solve(a, b, c, Producer(d), out=Producer(out))
    assert_solves(out, a, b, c, d, -1)
