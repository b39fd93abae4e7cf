#!/usr/bin/env python3
"""Writes the seed corpus of triax_capi_fuzz into fuzz/corpus/: one small file per case, in the
field order of fuzz/fuzz_case.hpp. Each seed is a starting point the fuzzer mutates: every layout
kind, every operation, checked and unchecked, both precisions, each misuse, and a few bad
arguments. Run it again after changing the decoder; the files are small and kept in git."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

PACKED, PADDED, PERMUTED, SMALL, RAW = range(5)
IN_PLACE, SOLVE, INCREMENT = range(3)
MISUSE = {"none": 7, "null": 1, "misaligned": 2, "precision": 3, "alias": 4, "no_info": 5}
# fuzz_case.hpp maps backend byte % 8 through {cpu x4, reference, cuda, reference, 3}.
CPU, REFERENCE, CUDA, NOT_A_BACKEND = 0, 4, 5, 7


def case(extents, axis, *, single=False, op=IN_PLACE, checked=False, raw_values=False,
         misuse="none", operand=0, backend=CPU, algorithm=0, threads=0, kind=PACKED,
         layout_bytes=b"", seed=1, spoils=b"", rank=None):
    rank = len(extents) if rank is None else rank
    flags = int(single) | (op << 1) | (int(checked) << 3) | (int(raw_values) << 4) | (MISUSE[misuse] << 5)
    b = bytes([flags, operand, backend, rank, (axis + 1) % 256, algorithm, threads + 2, kind])
    if kind == RAW:
        b += b"".join(struct.pack("<q", e) for e in extents)
    else:
        b += bytes(extents)
    return b + layout_bytes + struct.pack("<Q", seed) + spoils


def seeds():
    yield "packed_1d", case([17], 0)
    yield "packed_1d_one_row", case([1], 0)
    yield "packed_2d_axis0_transpose", case([16, 9], 0, algorithm=4)
    yield "packed_2d_axis1", case([9, 16], 1, op=SOLVE)
    yield "packed_3d_axis2_increment", case([5, 4, 7], 2, op=INCREMENT)
    yield "packed_3d_float_checked", case([8, 3, 5], 1, single=True, checked=True, op=SOLVE)
    yield "packed_4d_threads", case([3, 4, 2, 6], 3, threads=3)
    yield "packed_8d", case([2] * 8, 5, checked=True)
    yield "padded_3d", case([6, 5, 4], 1, kind=PADDED, layout_bytes=bytes([2, 1, 3, 0, 1, 1]))
    yield "padded_2d_axis0", case([13, 3], 0, kind=PADDED, op=SOLVE, layout_bytes=bytes([3, 2, 1, 1]))
    yield "permuted_3d", case([4, 6, 5], 0, kind=PERMUTED, layout_bytes=bytes([2, 1]))
    yield "small_strides_broadcast", case([4, 3], 0, kind=SMALL, layout_bytes=bytes([1, 0, 2]))
    yield "small_strides_self_overlap", case([4, 3], 0, kind=SMALL, op=SOLVE, layout_bytes=bytes([1, 1, 0]))
    yield "zero_rows", case([0, 3], 0, checked=True)
    yield "zero_systems", case([5, 0], 0, checked=True)
    yield "reference_dense_lu", case([7, 3], 0, backend=REFERENCE, algorithm=2, checked=True)
    yield "raw_values_checked", case([9, 2], 0, checked=True, raw_values=True,
                                     spoils=bytes([1, 3, 0, 0, 0, 3, 4, 0, 0, 2, 1, 5, 0, 0, 8]))
    yield "raw_values_unchecked", case([6], 0, raw_values=True, spoils=bytes([3, 2, 0, 0, 3]))
    yield "misuse_null", case([4, 4], 1, misuse="null", operand=2)
    yield "misuse_misaligned", case([4, 4], 0, misuse="misaligned", operand=3, op=SOLVE)
    yield "misuse_precision", case([4, 4], 1, misuse="precision", single=True)
    yield "misuse_alias", case([4, 4], 0, misuse="alias", operand=1, op=SOLVE)
    yield "misuse_no_info", case([4, 4], 1, misuse="no_info", checked=True)
    yield "bad_rank_0", case([], 0, rank=0)
    yield "bad_rank_9", case([2] * 8, 0, rank=9)
    yield "bad_axis", case([4, 4], 2)
    yield "bad_algorithm", case([4], 0, algorithm=11)
    yield "bad_threads", case([4], 0, threads=-2)
    yield "cuda_not_compiled", case([4], 0, backend=CUDA)
    yield "not_a_backend", case([4], 0, backend=NOT_A_BACKEND)
    yield "raw_layout_overflow", case([1 << 40, 1 << 40], 0, kind=RAW,
                                      layout_bytes=struct.pack("<qqq", 1, 1 << 40, 0))
    yield "raw_layout_negative", case([4, -3], 1, kind=RAW, layout_bytes=struct.pack("<qqq", 1, 4, 0))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(list(seeds()))} seeds to {OUT}")


if __name__ == "__main__":
    main()
