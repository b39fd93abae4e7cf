// The examples in the public headers' Doxygen comments are compiled and run here (and, for the C
// header, in tests/capi/capi_test.c); a check keeps each header's @code block and the test's copy
// the same, so an example cannot rot.
#include <triax/triax.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/problems.hpp"

namespace triax::test {
namespace {

// The snippet of triax.hpp, as a function of the operand pointers.
void triax_hpp_example(double* a, double* b, double* c, double* d) {
  // 64 x 64 x 64 grid, systems along axis 1 (y), all operands packed alike.
  auto layout = triax::Layout::packed({64, 64, 64});
  triax::Solver<double> solver(triax::Backend::cpu, layout, /*axis=*/1);
  solver.solve_in_place(a, b, c, d);  // d now holds x
}

TEST(DocExamples, TriaxHppSolvesAlongY) {
  const auto layout = Layout::packed({64, 64, 64});
  Batch<double> batch{OperandLayouts(layout)};
  batch.fill_random(test_seed());
  Batch<double> want = batch;
  Solver<double>(Backend::reference, layout, 1)
      .solve_in_place(want.a.data(), want.b.data(), want.c.data(), want.d.data());
  triax_hpp_example(batch.a.data(), batch.b.data(), batch.c.data(), batch.d.data());
  EXPECT_TRUE(outputs_match(layout, batch.d, want.d, batch.condition));
}

TEST(DocExamples, LayoutHppPaddedGrid) {
  auto l = triax::Layout::padded({64, 32, 16}, {66, 34, 18}, {1, 1, 1});
  EXPECT_EQ(l.rank(), 3);
  EXPECT_EQ(l.extent(0), 64);
  EXPECT_EQ(l.stride(1), 66);
  EXPECT_EQ(l.stride(2), 66 * 34);
  EXPECT_EQ(l.offset(), 1 + 66 + 66 * 34);
  const std::int64_t last[] = {63, 31, 15};
  EXPECT_EQ(l.offset_of(last), 64 + 32 * 66 + 16 * 66 * 34);  // inside the 66 x 34 x 18 block
  EXPECT_LT(l.offset_of(last), 66 * 34 * 18);
}

// The lines between @code and @endcode in a header, without the comment leaders, blank lines
// dropped.
std::vector<std::string> code_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("@endcode") != std::string::npos) {
      inside = false;
    } else if (line.find("@code") != std::string::npos) {
      inside = true;
    } else if (inside) {
      const std::size_t start = line.find_first_not_of(" /*");
      if (start != std::string::npos) lines.push_back(line.substr(start));
    }
  }
  return lines;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DocExamples, HeaderSnippetsMatchTheTestedCode) {
  const auto root = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  ASSERT_TRUE(std::filesystem::exists(root / "include/triax/triax.hpp"))
      << "source tree not found from " << __FILE__;
  const std::pair<const char*, const char*> pairs[] = {
      {"include/triax/triax.hpp", "tests/core/doc_examples_test.cpp"},
      {"include/triax/layout.hpp", "tests/core/doc_examples_test.cpp"},
      {"include/triax/stencil.hpp", "tests/support/factored_stencil.hpp"},
      {"include/triax/triax.h", "tests/capi/capi_test.c"}};
  for (const auto& [header, test] : pairs) {
    const std::vector<std::string> lines = code_lines(read(root / header));
    EXPECT_FALSE(lines.empty()) << header << " has no @code block";
    const std::string source = read(root / test);
    for (const std::string& line : lines) {
      EXPECT_NE(source.find(line), std::string::npos)
          << header << ": the example line\n  " << line << "\nis not in " << test;
    }
  }
}

}  // namespace
}  // namespace triax::test
