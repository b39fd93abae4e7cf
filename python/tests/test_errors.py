"""Every error path: the exception type, a message that names the argument, nothing written."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import random_system


@pytest.fixture
def system(rng):
    return random_system(rng, (4, 6))


def untouched(out, value=0.0):
    return (np.asarray(out) == value).all()


def test_not_an_array(system):
    a, b, c, d = system
    with pytest.raises(TypeError, match=r"triax: b of type list is not an array"):
        triax.solve(a, [1.0] * 6, c, d)
    with pytest.raises(TypeError, match="a is None"):
        triax.solve(None, b, c, d)
    with pytest.raises(TypeError, match="d of type builtins.str is not an array"):
        triax.solve(a, b, c, "d")


def test_dtypes(system):
    a, b, c, d = system
    out = np.zeros_like(d)
    with pytest.raises(TypeError, match="c has dtype float32 but d has float64"):
        triax.solve(a, b, c.astype(np.float32), d, out=out)
    with pytest.raises(TypeError, match="out has dtype float32 but d has float64"):
        triax.solve(a, b, c, d, out=out.astype(np.float32))
    with pytest.raises(TypeError, match="d has dtype int64; triax solves float32 and float64"):
        triax.solve(a, b, c, np.ones(d.shape, np.int64))
    with pytest.raises(TypeError, match="d has dtype complex128"):
        triax.solve(a, b, c, d.astype(np.complex128))
    assert untouched(out)


def test_shapes(system):
    a, b, c, d = system
    out = np.zeros_like(d)
    with pytest.raises(ValueError, match=r"a has shape \(5,\), which does not broadcast to d's "
                                         r"shape \(4, 6\)"):
        triax.solve(np.ones(5), b, c, d, out=out)
    with pytest.raises(ValueError, match=r"b has shape \(2, 4, 6\), which does not broadcast"):
        triax.solve(a, np.ones((2, 4, 6)), c, d, out=out)
    with pytest.raises(ValueError, match=r"out has shape \(6, 4\) but d has shape \(4, 6\)"):
        triax.solve(a, b, c, d, out=np.zeros((6, 4)))
    with pytest.raises(ValueError, match=r"out has shape \(6,\) but d has shape \(4, 6\)"):
        triax.solve(a, b, c, d, out=np.zeros(6))  # out is never broadcast
    with pytest.raises(ValueError, match="d has 0 dimensions"):
        triax.solve(a, b, c, np.array(1.0))
    nine = np.ones((1,) * 9)
    with pytest.raises(ValueError, match="d has 9 dimensions; triax solves arrays of 1 to 8"):
        triax.solve(nine, nine, nine, nine)
    assert untouched(out)


def test_axis(system):
    a, b, c, d = system
    for axis in (2, -3):
        with pytest.raises(ValueError, match=f"axis = {axis} is out of range for d with 2 "
                                             "dimensions"):
            triax.solve(a, b, c, d, axis=axis)
    with pytest.raises(ValueError, match="axis = 5 is out of range"):
        triax.solve(a, b, c, d, axis=5, check=True)


def test_overlap_is_the_library_message(system):
    a, b, c, d = system
    a0 = a.copy()
    with pytest.raises(ValueError, match=r"triax::Solver: the output x = 0x[0-9a-f]+ overlaps "
                                         r"input a"):
        triax.solve(a, b, c, d, out=a)
    np.testing.assert_array_equal(a, a0)
    # Increment into d itself: d is an input too.
    d0 = d.copy()
    with pytest.raises(ValueError, match="overlaps input d"):
        triax.solve(a, b, c, d, out=d, increment=True)
    np.testing.assert_array_equal(d, d0)
    # Part of d as out.
    with pytest.raises(ValueError, match="overlaps input d"):
        triax.solve(a[:, :3], b[:, :3], c[:, :3], d[:, :3], out=d[:, 1:4])
    np.testing.assert_array_equal(d, d0)


def test_bad_outputs(system):
    a, b, c, d = system
    with pytest.raises(ValueError, match="out is read-only"):
        ro = np.zeros_like(d)
        ro.flags.writeable = False
        triax.solve(a, b, c, d, out=ro)
    with pytest.raises(ValueError, match=r"layout of x.*stride\[1\] = 0 with extent 4"):
        # A writable stride-0 view: the library refuses to write an element twice.
        triax.solve(a, b, c, d, out=np.lib.stride_tricks.as_strided(np.zeros(6), (4, 6), (0, 8)))
    with pytest.raises(ValueError, match="out has negative strides"):
        triax.solve(a, b, c, d, out=np.zeros_like(d)[::-1])
    with pytest.raises(ValueError, match=r"stride\[1\] = 0 with extent 4"):  # in place, d broadcast
        dd = np.lib.stride_tricks.as_strided(np.zeros(6), (4, 6), (0, 8))
        triax.solve(a, b, c, dd, out=dd)
    with pytest.raises(ValueError, match="increment=True adds the solution to out, but out is "
                                         "None"):
        triax.solve(a, b, c, d, increment=True)


def plan_for_2_to_the_40_rows():
    """(exception type, message) of a plan for one system of 2^40 rows. Its arrays are views of
    one element: they must never be read, not even by a failing test's report, so they stay
    in this frame."""
    n = 2**40
    out = np.lib.stride_tricks.as_strided(np.zeros(1), (n,), (8,))
    d = np.broadcast_to(np.zeros(1), (n,))
    try:
        triax.Solver(np.array(1.0), np.array(3.0), np.array(1.0), d, out=out)
    except Exception as e:  # noqa: BLE001 - the type is what the test checks
        return type(e), str(e)
    finally:
        del out, d
    return None, ""


def test_workspace_out_of_memory():
    # Terabytes of workspace: MemoryError when the plan is made, before anything is touched.
    kind, message = plan_for_2_to_the_40_rows()
    assert kind is MemoryError, (kind, message)
    assert "could not be allocated" in message


def test_strides_that_are_not_whole_elements(system):
    a, b, c, d = system
    packed = np.zeros(24, dtype=[("x", np.float64), ("flag", np.int8)])["x"].reshape(4, 6)
    assert packed.strides[1] == 9
    with pytest.raises(ValueError, match=r"out has byte strides \(54, 9\) that are not "
                                         r"multiples of its itemsize 8"):
        triax.solve(a, b, c, d, out=packed)
    with pytest.raises(ValueError, match=r"d has byte strides \(54, 9\)"):
        triax.solve(a, b, c, packed)


def test_check_argument(system):
    with pytest.raises(ValueError, match=r"check = 'yes'; expected False, True, 'raise' or "
                                         r"'return'"):
        triax.solve(*system, check="yes")
