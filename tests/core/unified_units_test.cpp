// The Unified-Vector recogniser (core/unified_units.hpp) on normalised problems: the layouts of
// paper 002 and their N-D forms, with the pointers a plan sees. Addresses are only compared,
// never read, so the base pointers are plain numbers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/normalize.hpp"
#include "core/unified_units.hpp"
#include "triax/layouts.hpp"

namespace triax {
namespace {

using detail::normalize;
using detail::unified_units;

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

/// unified_units for a, b, c, d at base + shift[k] bytes, solved along `axis`.
bool units(const OperandLayouts& l, int axis, std::size_t elem, std::uintptr_t base,
           const std::uintptr_t (&shift)[4] = {0, 0, 0, 0}) {
  const void* const ptrs[4] = {at(base + shift[0]), at(base + shift[1]), at(base + shift[2]),
                               at(base + shift[3])};
  return unified_units(normalize(l, axis), elem, ptrs);
}

constexpr std::uintptr_t aligned = 0x100000;  // a multiple of every unit size

TEST(UnifiedUnits, PaperLayoutInOneBufferIsRecognised) {
  for (const std::int64_t n : {1, 2, 3, 64, 513}) {
    for (const std::int64_t count : {1, 7, 256}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", count " + std::to_string(count));
      const OperandLayouts u = layouts::unified_vector(n, count);
      EXPECT_TRUE(units(u, 0, 4, aligned));
      EXPECT_TRUE(units(u, 0, 8, aligned));
    }
  }
}

TEST(UnifiedUnits, MisalignedBaseIsNot) {
  const OperandLayouts u = layouts::unified_vector(64, 100);
  EXPECT_FALSE(units(u, 0, 4, aligned + 4));   // one float past a unit
  EXPECT_FALSE(units(u, 0, 8, aligned + 8));   // one double past
  EXPECT_FALSE(units(u, 0, 8, aligned + 16));  // 16-byte aligned: a float unit, half a double one
  EXPECT_TRUE(units(u, 0, 4, aligned + 16));
}

TEST(UnifiedUnits, OperandsInSeparateBuffersAreNot) {
  // The same layouts, each operand in a buffer of its own (as the device tests' runner does).
  const OperandLayouts u = layouts::unified_vector(64, 100);
  const std::uintptr_t apart = 4 * 64 * 100 * 8;
  EXPECT_FALSE(units(u, 0, 4, aligned, {0, apart, 2 * apart, 3 * apart}));
  const OperandLayouts il(layouts::interleaved(64, 100));
  EXPECT_FALSE(units(il, 0, 4, aligned, {0, apart, 2 * apart, 3 * apart}));
  EXPECT_FALSE(units(OperandLayouts(layouts::flat(64, 100)), 0, 4, aligned));
}

TEST(UnifiedUnits, OffsetsInPointersInsteadOfLayouts) {
  // One stride-4 layout for all four operands, the components chosen by the pointers p .. p + 3.
  const std::int64_t n = 33, count = 20;
  const OperandLayouts one(Layout::strided({n, count}, {4 * count, 4}));
  EXPECT_TRUE(units(one, 0, 4, aligned, {0, 4, 8, 12}));
  EXPECT_TRUE(units(one, 0, 8, aligned, {0, 8, 16, 24}));
  EXPECT_FALSE(units(one, 0, 4, aligned, {4, 0, 8, 12}));  // a and b swapped
  EXPECT_FALSE(units(one, 0, 4, aligned, {0, 4, 12, 8}));  // c and d swapped
  EXPECT_FALSE(units(one, 0, 4, aligned, {0, 4, 8, 8}));   // d on c
}

TEST(UnifiedUnits, StridesMustMatchAndKeepUnitsAligned) {
  const std::int64_t n = 16, count = 12;
  OperandLayouts u = layouts::unified_vector(n, count);
  OperandLayouts other = u;
  other.c = Layout::strided({n, count}, {4 * count + 4, 4}, 2);  // c's rows further apart
  EXPECT_FALSE(units(other, 0, 4, aligned));
  // Units of 5 elements (a fifth component between units): unaligned units. Units of 8 (a, b,
  // c, d and four more): aligned, recognised.
  const auto wide = [&](std::int64_t w) {
    OperandLayouts l = u;
    Layout* ops[4] = {&l.a, &l.b, &l.c, &l.d};
    for (int k = 0; k < 4; ++k) *ops[k] = Layout::strided({n, count}, {w * count, w}, k);
    l.x = l.d;
    return l;
  };
  EXPECT_FALSE(units(wide(5), 0, 4, aligned));
  const OperandLayouts eight = wide(8);
  EXPECT_TRUE(units(eight, 0, 4, aligned));
}

TEST(UnifiedUnits, OutputLayoutPlaysNoPart) {
  OperandLayouts u = layouts::unified_vector(40, 30);
  u.x = layouts::interleaved(40, 30);
  EXPECT_TRUE(units(u, 0, 4, aligned));
}

TEST(UnifiedUnits, NdFormsOnlyWithTheComponentFastest) {
  const std::int64_t extents[] = {9, 6, 5};
  const int order[] = {0, 1, 2};
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    EXPECT_TRUE(units(layouts::unified(extents, order, 0), axis, 4, aligned));
    for (int where = 1; where <= 3; ++where) {
      EXPECT_FALSE(units(layouts::unified(extents, order, where), axis, 4, aligned));
    }
  }
}

}  // namespace
}  // namespace triax
