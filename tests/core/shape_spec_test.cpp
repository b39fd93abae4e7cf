// triax-bench's --shape SPEC (bench/shape_spec.hpp): the draw each spec describes, and a clear
// error naming the spec for every malformed one.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "shape_spec.hpp"

namespace triax::bench {
namespace {

TEST(ShapeSpec, PlainDraw) {
  const ShapeDraw d = parse_shape_draw("float:294x511x289:1");
  EXPECT_EQ(d.precision, Precision::f32);
  EXPECT_EQ(d.extents, (std::vector<std::int64_t>{294, 511, 289}));
  EXPECT_EQ(d.allocated, d.extents);
  EXPECT_EQ(d.begin, (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(d.axis, 1);
  EXPECT_EQ(d.n(), 511);
  EXPECT_EQ(d.systems(), 294 * 289);
  EXPECT_EQ(d.mode, Mode::in_place);
  EXPECT_FALSE(d.broadcast);
  EXPECT_FALSE(d.padded());
  EXPECT_EQ(d.klass, ShapeClass::lengths);
}

TEST(ShapeSpec, Flags) {
  const ShapeDraw b = parse_shape_draw("double:449x15540:0:bcast,increment");
  EXPECT_EQ(b.precision, Precision::f64);
  EXPECT_TRUE(b.broadcast);
  EXPECT_EQ(b.mode, Mode::increment);
  EXPECT_EQ(b.klass, ShapeClass::operands);
  EXPECT_EQ(describe(b), "449x15540 bcast");

  const ShapeDraw g = parse_shape_draw("float:300x240x240:2:ghost2,offset,separate");
  EXPECT_EQ(g.allocated, (std::vector<std::int64_t>{304, 244, 244}));
  EXPECT_EQ(g.begin, (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(g.base_offset, 1);
  EXPECT_EQ(g.mode, Mode::separate);
  EXPECT_EQ(g.klass, ShapeClass::padded);
  EXPECT_EQ(describe(g), "300x240x240 in 304x244x244+1");
}

TEST(ShapeSpec, MalformedSpecsNameThemselves) {
  for (const std::string bad :
       {"float", "float:300", "half:300x240:0", "float:300x:0", "float:300x0:0", "float:300x240:2",
        "float:300x240:-1", "float:300x240:0:wide", "float:300x240:0:ghost", "float:300x240:0:x:y",
        "float:3e2x240:0"}) {
    SCOPED_TRACE(bad);
    try {
      parse_shape_draw(bad);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace triax::bench
