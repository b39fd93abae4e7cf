// How the hybrid cuts a system into its chunk threads' chunks (chunk_split.cuh), on the host:
// every cut covers the n rows once, in order, with no chunk longer than a thread holds, and the
// cut in whole vectors (split_vectors) starts every chunk on a vector and says no exactly where
// it cannot. The solves see a cut only through the lengths the shapes happen to use; a wrong
// one here would read past a system or leave rows unsolved. No device needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/normalize.hpp"
#include "cuda/scalar/block/chunk_split.cuh"
#include "cuda/scalar/block/hybrid.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

using detail::cuda::chunk_start;
using detail::cuda::HybridShape;

/// The chunks of sh over n rows and P threads: contiguous from row 0 to n, active ones of 1 to
/// `most` rows (at least 2 unless n == 1), the rest empty.
void expect_cut_covers(const HybridShape& sh, std::int64_t n, int P, int most) {
  ASSERT_GE(sh.active, 1);
  ASSERT_LE(sh.active, P);
  EXPECT_EQ(chunk_start(sh, n, 0), 0);
  for (int j = 0; j < P; ++j) {
    const int L = chunk_start(sh, n, j + 1) - chunk_start(sh, n, j);
    if (j < sh.active) {
      EXPECT_GE(L, n == 1 ? 1 : 2) << "chunk " << j;
      EXPECT_LE(L, most) << "chunk " << j;
    } else {
      EXPECT_EQ(L, 0) << "chunk " << j;
    }
  }
  EXPECT_EQ(chunk_start(sh, n, P), n);
}

template <class T>
void check_every_length(int M) {
  constexpr int V = 16 / sizeof(T);
  for (int P = 1; P <= 256; P *= 2) {
    for (std::int64_t n = 1; n <= std::int64_t(M) * P; ++n) {
      SCOPED_TRACE("n " + std::to_string(n) + ", P " + std::to_string(P) + ", M " +
                   std::to_string(M));
      const HybridShape even = detail::cuda::split_rows(n, P, P, 1);
      expect_cut_covers(even, n, P, M);
      HybridShape v = even;
      const std::int64_t wanted = ((n + P - 1) / P + V - 1) / V * V;
      const bool possible = n % V == 0 && wanted <= M;
      ASSERT_EQ(detail::cuda::split_vectors<T>(n, M, P, v), possible);
      if (!possible) {
        EXPECT_EQ(v.q, even.q);  // left alone
        EXPECT_EQ(v.rem, even.rem);
        EXPECT_EQ(v.active, even.active);
        continue;
      }
      expect_cut_covers(v, n, P, M);
      for (int j = 0; j <= P; ++j) EXPECT_EQ(chunk_start(v, n, j) % V, 0) << "chunk " << j;
    }
  }
}

TEST(ChunkSplit, EveryLengthFloat) {
  check_every_length<float>(8);
  check_every_length<float>(12);
  check_every_length<float>(16);
}

TEST(ChunkSplit, EveryLengthDouble) { check_every_length<double>(8); }

// The cuts the notes and docs/algorithms.md name.
TEST(ChunkSplit, NamedCases) {
  HybridShape sh = detail::cuda::split_rows(300, 32, 32, 8);
  ASSERT_TRUE(detail::cuda::split_vectors<float>(300, 16, 32, sh));
  EXPECT_EQ(sh.q, 12);
  EXPECT_EQ(sh.active, 25);
  sh = detail::cuda::split_rows(166, 32, 32, 8);
  ASSERT_TRUE(detail::cuda::split_vectors<double>(166, 8, 32, sh));
  EXPECT_EQ(sh.q, 6);
  EXPECT_EQ(sh.active, 28);
  EXPECT_EQ(166 - chunk_start(sh, 166, 27), 4);  // the last chunk
  // n = 1000 over 64 threads needs 16 rows a chunk: more than 8 double rows.
  sh = detail::cuda::split_rows(1000, 64, 64, 4);
  EXPECT_FALSE(detail::cuda::split_vectors<double>(1000, 8, 64, sh));
  EXPECT_FALSE(detail::cuda::split_vectors<float>(257, 16, 32, sh));
}

/// chunk_shifted's chunks of n rows whose row 0 lies `shift` rows past a vector boundary, over P
/// threads: every row in exactly one chunk, in order; every chunk but the first starting on a
/// vector; no chunk of more registers than M or of exactly one; the chunks past the rows empty.
template <class T>
void expect_shifted_cut_covers(const HybridShape& sh, int n, int shift, int P, int M) {
  constexpr int V = 16 / sizeof(T);
  int next = 0;  // the first row no chunk has taken yet
  for (int j = 0; j < P; ++j) {
    const int r0 = j * sh.q - shift;
    const int L = detail::cuda::shifted_chunk_rows(r0, n, sh.q);
    if (j > 0) EXPECT_EQ((r0 + shift) % V, 0) << "chunk " << j;
    EXPECT_NE(L, 1) << "chunk " << j;
    EXPECT_LE(L, M) << "chunk " << j;
    if (L == 0) {
      EXPECT_GE(r0, n) << "chunk " << j;
      continue;
    }
    const int first = std::max(r0, 0), end = std::min(r0 + L, n);
    EXPECT_EQ(first, next) << "chunk " << j;
    next = end;
  }
  EXPECT_EQ(next, n);
}

template <class T>
void check_every_shifted_length(int M) {
  constexpr int V = 16 / sizeof(T);
  for (int P = 1; P <= 256; P *= 2) {
    for (int n = 1; n <= M * P; ++n) {
      for (int most = 0; most < V; ++most) {
        SCOPED_TRACE("n " + std::to_string(n) + ", P " + std::to_string(P) + ", M " +
                     std::to_string(M) + ", shifts up to " + std::to_string(most));
        HybridShape sh = detail::cuda::split_rows(n, P, P, 1);
        const int wanted = ((n + most + P - 1) / P + V - 1) / V * V;
        ASSERT_EQ(detail::cuda::split_shifted<T>(n, M, P, most, sh), wanted <= M);
        if (wanted > M) continue;
        for (int shift = 0; shift <= most; ++shift) {
          expect_shifted_cut_covers<T>(sh, n, shift, P, M);
        }
      }
    }
  }
}

TEST(ChunkSplit, ShiftedEveryLengthFloat) {
  check_every_shifted_length<float>(8);
  check_every_shifted_length<float>(12);
  check_every_shifted_length<float>(16);
}

TEST(ChunkSplit, ShiftedEveryLengthDouble) { check_every_shifted_length<double>(8); }

/// A batch of `count` systems of n rows along axis 0, system s at offset + s * stride in every
/// operand.
detail::Problem batch_along_x(std::int64_t n, std::int64_t count, std::int64_t offset,
                              std::int64_t stride) {
  detail::Problem p{};
  p.n = n;
  p.count = count;
  p.batch_rank = 1;
  p.batch_extents[0] = count;
  for (auto& m : p.map) {
    m.offset = offset;
    m.row_stride = 1;
    m.batch_strides[0] = stride;
  }
  return p;
}

// Which loads direct_shape gives the arrays (the addresses only are read; nothing is dereferenced).
TEST(ChunkSplit, DirectShapeByLayout) {
  using detail::cuda::Mapping;
  alignas(16) static float buffer[64];
  float* base = buffer;
  const detail::Operands<float> ops{base, base, base, base, base, false, nullptr};
  const auto shape_of = [&](const detail::Problem& p, const detail::Operands<float>& o) {
    HybridShape sh = detail::cuda::split_rows(p.n, 32, 32, 8);
    return detail::cuda::direct_shape<float>(p, o, 16, sh);
  };
  // Packed, n a multiple of 4: whole vectors.
  EXPECT_EQ(shape_of(batch_along_x(300, 100, 0, 300), ops), Mapping::chunk_direct);
  // Odd n, packed: systems start anywhere, alike in every operand.
  EXPECT_EQ(shape_of(batch_along_x(301, 100, 0, 301), ops), Mapping::chunk_shifted);
  // One ghost layer: n = 256 of 258.
  EXPECT_EQ(shape_of(batch_along_x(256, 100, 1, 258), ops), Mapping::chunk_shifted);
  // Every system one row past a vector (a ghost layer, strides of whole vectors).
  EXPECT_EQ(shape_of(batch_along_x(256, 100, 1, 256), ops), Mapping::chunk_shifted);
  // Base pointers one element past a vector: every operand alike.
  const detail::Operands<float> moved{base + 1, base + 1, base + 1, base + 1, base + 1, false,
                                      nullptr};
  EXPECT_EQ(shape_of(batch_along_x(256, 100, 0, 256), moved), Mapping::chunk_shifted);
  // x one element apart from the rest: its vectors would not be the others'.
  const detail::Operands<float> x_apart{base, base, base, base, base + 1, false, nullptr};
  EXPECT_EQ(shape_of(batch_along_x(301, 100, 0, 301), x_apart), Mapping::chunk_fastest);
  // x four elements (one vector) apart: alike again.
  const detail::Operands<float> x_vector{base, base, base, base, base + 4, false, nullptr};
  EXPECT_EQ(shape_of(batch_along_x(301, 100, 0, 301), x_vector), Mapping::chunk_shifted);
  // a, b, c one value per system (row stride 0): only d and x need to agree.
  detail::Problem broadcast = batch_along_x(301, 100, 0, 301);
  for (int op = detail::op_a; op <= detail::op_c; ++op) {
    broadcast.map[op].row_stride = 0;
    broadcast.map[op].batch_strides[0] = 1;
  }
  EXPECT_EQ(shape_of(broadcast, ops), Mapping::chunk_shifted);
  // a, b, c one matrix for every system (row stride 1, batch stride 0): their vectors would
  // not be d's; shifted, the three read element by element (every other operand must still
  // agree), or staged with TRIAX_CUDA_HYBRID_SHARED_ROWS=0.
  detail::Problem shared_matrix = batch_along_x(301, 100, 0, 301);
  for (int op = detail::op_a; op <= detail::op_c; ++op) shared_matrix.map[op].batch_strides[0] = 0;
  {
    const ScopedEnv off("TRIAX_CUDA_HYBRID_SHARED_ROWS", "0");
    EXPECT_EQ(shape_of(shared_matrix, ops), Mapping::chunk_fastest);
  }
  {
    HybridShape sh = detail::cuda::split_rows(301, 32, 32, 8);
    EXPECT_EQ(detail::cuda::direct_shape<float>(shared_matrix, ops, 16, sh),
              Mapping::chunk_shifted);
    EXPECT_EQ(sh.shared_rows, 1u << detail::op_a | 1u << detail::op_b | 1u << detail::op_c);
    // Only b shared, a and c one value per system.
    detail::Problem shared_b = broadcast;
    shared_b.map[detail::op_b].row_stride = 1;
    shared_b.map[detail::op_b].batch_strides[0] = 0;
    EXPECT_EQ(detail::cuda::direct_shape<float>(shared_b, ops, 16, sh), Mapping::chunk_shifted);
    EXPECT_EQ(sh.shared_rows, 1u << detail::op_b);
    // d and x still agree with each other; x one element apart stays staged.
    EXPECT_EQ(shape_of(shared_matrix, x_apart), Mapping::chunk_fastest);
    // Systems whose own rows agree take no shared bits, nor does one system alone.
    EXPECT_EQ(detail::cuda::direct_shape<float>(batch_along_x(301, 100, 0, 301), ops, 16, sh),
              Mapping::chunk_shifted);
    EXPECT_EQ(sh.shared_rows, 0u);
    detail::Problem alone = batch_along_x(301, 1, 0, 301);
    alone.batch_rank = 0;
    EXPECT_EQ(detail::cuda::direct_shape<float>(alone, moved, 16, sh), Mapping::chunk_shifted);
    EXPECT_EQ(sh.shared_rows, 0u);
  }
  // Rows not contiguous in x: staged.
  detail::Problem strided_x = batch_along_x(301, 100, 0, 301);
  strided_x.map[detail::op_x].row_stride = 2;
  EXPECT_EQ(shape_of(strided_x, ops), Mapping::chunk_fastest);
  // Too long for 16 rows a chunk over 32 threads once the shift is counted: 512 rows need
  // 515 / 32 -> 20.
  EXPECT_EQ(shape_of(batch_along_x(511, 100, 0, 511), ops), Mapping::chunk_fastest);
}

// The shifts a batch's systems can have: phase + i gcd(V, strides) modulo V.
TEST(ChunkSplit, MaxVectorShift) {
  using detail::cuda::max_vector_shift;
  // Strides that are whole vectors: every system at the phase.
  EXPECT_EQ(max_vector_shift<float>(0, batch_along_x(256, 10, 0, 256), detail::op_d), 0);
  EXPECT_EQ(max_vector_shift<float>(1, batch_along_x(256, 10, 0, 256), detail::op_d), 1);
  EXPECT_EQ(max_vector_shift<float>(7, batch_along_x(256, 10, 0, 256), detail::op_d), 3);
  // Odd strides: every shift.
  EXPECT_EQ(max_vector_shift<float>(0, batch_along_x(301, 10, 0, 301), detail::op_d), 3);
  EXPECT_EQ(max_vector_shift<double>(0, batch_along_x(301, 10, 0, 301), detail::op_d), 1);
  // Strides of half a vector (258 floats): the phase and the phase + 2.
  EXPECT_EQ(max_vector_shift<float>(1, batch_along_x(256, 10, 0, 258), detail::op_d), 3);
  EXPECT_EQ(max_vector_shift<float>(0, batch_along_x(256, 10, 0, 258), detail::op_d), 2);
  EXPECT_EQ(max_vector_shift<double>(1, batch_along_x(256, 10, 0, 258), detail::op_d), 1);
  // A negative stride as its positive.
  EXPECT_EQ(max_vector_shift<float>(0, batch_along_x(256, 10, 0, -258), detail::op_d), 2);
}

// The span a layout addresses, which bounds chunk_shifted's whole-vector reads.
TEST(ChunkSplit, OperandSpan) {
  std::int64_t lo = 0, hi = 0;
  // 37 systems of 256 rows with a ghost layer each side: rows 1 .. 256 of 258, 39 x 258 in all.
  detail::Problem p = batch_along_x(256, 37, 1 + 258, 258);
  detail::cuda::operand_span(p, detail::op_d, lo, hi);
  EXPECT_EQ(lo, 259);
  EXPECT_EQ(hi, 259 + 255 + 36 * 258);
  // A negative batch stride reaches below the offset.
  p.map[detail::op_d].offset = 36 * 258;
  p.map[detail::op_d].batch_strides[0] = -258;
  detail::cuda::operand_span(p, detail::op_d, lo, hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 36 * 258 + 255);
}

/// hybrid_choose's block-family pick along x for the layout (no device needed along x: the
/// staged, clustered and pipelined kernels are for axes >= 1).
template <class T>
detail::cuda::HybridConfig choice_along_x(const Layout& layout) {
  detail::cuda::HybridConfig cfg;
  EXPECT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(OperandLayouts(layout), 0),
                                             detail::cuda::HybridFamily::block, cfg));
  return cfg;
}

/// Rows per chunk thread M and chunk threads P of a configuration.
void expect(const detail::cuda::HybridConfig& c, int M, int P) {
  EXPECT_EQ(c.M, M);
  EXPECT_EQ(c.P, P);
}

// Where the layout puts systems between vectors, the plan gives the chunks room for the shift
// where that keeps M and, within a warp, P (docs/algorithms.md, "How hybrid_choose configures
// it"): the cases its measurements name.
TEST(ShiftedChoice, ChunksHoldTheShiftWhereTheyKeepMAndP) {
  // float 1001 packed: 126 chunks of 8 with the shift (128 threads; 12 rows would need 96).
  expect(choice_along_x<float>(Layout::packed({1001, 64})), 8, 128);
  // float 1023 packed: 129 chunks of 8 with the shift would add a warp (160 threads); 86 of 12
  // take 96.
  expect(choice_along_x<float>(Layout::packed({1023, 64})), 12, 96);
  // float 301: 12 rows, one warp, with or without the shift.
  expect(choice_along_x<float>(Layout::packed({301, 64})), 12, 32);
  // float 382: 12 rows would not hold a shift of 3; 16.
  expect(choice_along_x<float>(Layout::packed({382, 64})), 16, 32);
  // float 2500 packed: past one warp 16 rows stay (157 chunks in 160 threads).
  expect(choice_along_x<float>(Layout::packed({2500, 64})), 16, 160);
  // double 301: 8 rows (12 doubles are for no kernel).
  expect(choice_along_x<double>(Layout::packed({301, 64})), 8, 64);
  // float 7: two threads for one.
  expect(choice_along_x<float>(Layout::packed({7, 1000})), 8, 2);
  // float 511: 16 rows over 32 threads hold 511 but not 514; staged.
  expect(choice_along_x<float>(Layout::packed({511, 64})), 16, 32);
  // double 256 with a ghost layer: 64 threads would double 32; staged with 32.
  expect(choice_along_x<double>(Layout::padded({256, 40}, {258, 42}, {1, 1})), 8, 32);
  // Aligned layouts are unchanged: float 256 packed.
  expect(choice_along_x<float>(Layout::packed({256, 64})), 8, 32);
  // TRIAX_CUDA_HYBRID_SHIFTED=0: n alone.
  const ScopedEnv off("TRIAX_CUDA_HYBRID_SHIFTED", "0");
  expect(choice_along_x<float>(Layout::packed({1001, 64})), 8, 128);
  expect(choice_along_x<float>(Layout::packed({7, 1000})), 8, 1);
}

// Where the shifted rows do not fit 8-row chunks within a warp, 12-row chunks over the threads
// n alone takes, if they hold the shift (float 126 in 133: 8 rows would double a warp's 16
// threads; 255: 8 rows would take 33 chunks).
TEST(ShiftedChoice, TwelveRowsForShiftedRowsWithinAWarp) {
  expect(choice_along_x<float>(Layout::padded({126, 50}, {133, 50}, {0, 0})), 12, 16);
  expect(choice_along_x<float>(Layout::packed({255, 64})), 12, 32);
  expect(choice_along_x<float>(Layout::packed({127, 64})), 12, 16);
  expect(choice_along_x<float>(Layout::packed({63, 64})), 12, 8);
  expect(choice_along_x<float>(Layout::packed({31, 64})), 12, 4);
  // Where 8 rows hold the shift, or in double, nothing changes (past a warp: TwelveRowsPastAWarp).
  expect(choice_along_x<float>(Layout::packed({7, 1000})), 8, 2);
  expect(choice_along_x<float>(Layout::packed({1001, 64})), 8, 128);
  expect(choice_along_x<float>(Layout::packed({511, 64})), 16, 32);
  expect(choice_along_x<double>(Layout::packed({255, 64})), 8, 32);
}

// TRIAX_CUDA_HYBRID_SHIFTED12=0: those rows are staged, over the threads n alone takes.
TEST(ShiftedChoice, TwelveRowsForShiftedRowsSwitchOff) {
  const ScopedEnv off("TRIAX_CUDA_HYBRID_SHIFTED12", "0");
  expect(choice_along_x<float>(Layout::padded({126, 50}, {133, 50}, {0, 0})), 8, 16);
  expect(choice_along_x<float>(Layout::packed({255, 64})), 8, 32);
  expect(choice_along_x<float>(Layout::packed({31, 64})), 8, 4);
  expect(choice_along_x<float>(Layout::packed({301, 64})), 12, 32);  // in one warp: unchanged
}

// Past a warp along x, 12 float rows where their threads (up to 192) hold n and the shift in 5%
// fewer rows than 8 or 16 rows' threads.
TEST(ShiftedChoice, TwelveRowsPastAWarp) {
  expect(choice_along_x<float>(Layout::packed({1136, 64})), 12, 96);   // 8 rows: 160 threads
  expect(choice_along_x<float>(Layout::packed({1024, 64})), 12, 96);   // 8 rows: 160 with a shift
  expect(choice_along_x<float>(Layout::packed({2049, 64})), 12, 192);  // 16 rows: 160
  expect(choice_along_x<float>(Layout::packed({513, 64})), 8, 96);     // level: 768 rows
  expect(choice_along_x<float>(Layout::packed({768, 64})), 8, 96);     // 12 rows: 1152 to 1024
  expect(choice_along_x<float>(Layout::packed({1280, 64})), 8, 160);
  expect(choice_along_x<float>(Layout::packed({2500, 64})), 16, 160);  // 12 rows: 224 threads
  expect(choice_along_x<double>(Layout::packed({1136, 64})), 8, 160);
  // Along y, and in the warp family (at most 32 threads), no 12-row chunks.
  detail::cuda::HybridConfig along_y, warp;
  EXPECT_TRUE(detail::cuda::hybrid_choose<float>(
      detail::normalize(OperandLayouts(Layout::packed({64, 1136})), 1),
      detail::cuda::HybridFamily::block, along_y));
  EXPECT_EQ(along_y.M, 16);
  EXPECT_FALSE(detail::cuda::hybrid_choose<float>(
      detail::normalize(OperandLayouts(Layout::packed({1136, 64})), 0),
      detail::cuda::HybridFamily::warp, warp));
  const ScopedEnv off("TRIAX_CUDA_HYBRID_ROWS12", "0");
  expect(choice_along_x<float>(Layout::packed({1136, 64})), 8, 160);
}

// TRIAX_CUDA_HYBRID_ROWS12=0: 16 rows wherever 12 would be taken, shifted rows within a warp
// included (those that 8 rows do not hold are staged).
TEST(ShiftedChoice, TwelveRowsSwitchOff) {
  const ScopedEnv off("TRIAX_CUDA_HYBRID_ROWS12", "0");
  expect(choice_along_x<float>(Layout::packed({301, 64})), 16, 32);
  expect(choice_along_x<float>(Layout::packed({257, 64})), 16, 32);
  expect(choice_along_x<float>(Layout::packed({255, 64})), 8, 32);  // staged
}

}  // namespace
}  // namespace triax::test
