// The example in include/triax/factored.hpp's Doxygen comment, compiled and run here; a check
// keeps the header's @code block and this copy the same (as tests/core/doc_examples_test.cpp
// does for triax.hpp), so the example cannot rot.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <triax/factored.hpp>

namespace triax::test {
namespace {

void factored_hpp_example(double* d) {
  // The fourth-order Pade matrix (1/4, 1, 1/4) along y of a 64^3 grid.
  std::vector<double> a(64, 0.25), b(64, 1.0), c(64, 0.25);
  triax::FactoredSolver<double> solver(triax::Backend::cpu, a.data(), b.data(), c.data(), 64,
                                       triax::Layout::packed({64, 64, 64}), /*axis=*/1);
  solver.solve_in_place(d);  // d now holds x, every system solved with one matrix
}

void factored_hpp_groups_example(const double* a, const double* b, const double* c, double* d) {
  // 16 species, each its own matrix along axis 0 of a 256 x 64 x 16 array d.
  // a, b, c hold 256 x 16 values: row i of species s at i + 256 s.
  triax::FactoredSolver<double> solver(triax::Backend::cpu, a, b, c,
                                       triax::Layout::strided({256, 64, 16}, {1, 0, 256}),
                                       triax::Layout::packed({256, 64, 16}), /*axis=*/0);
  solver.solve_in_place(d);
}

TEST(FactoredExample, GroupsPerSpecies) {
  // Species s: (1, 2.5 + s, 1), diagonally dominant; x = 1 everywhere, so d is the row sums:
  // 4.5 + s inside, 3.5 + s at the two ends.
  std::vector<double> a(256 * 16, 1.0), b(256 * 16), c(256 * 16, 1.0), d(256 * 64 * 16);
  for (int s = 0; s < 16; ++s) {
    for (int i = 0; i < 256; ++i) b[i + 256 * s] = 2.5 + s;
  }
  for (std::size_t o = 0; o < d.size(); ++o) {
    const std::size_t i = o % 256, s = o / (256 * 64);
    d[o] = (i == 0 || i == 255) ? 3.5 + double(s) : 4.5 + double(s);
  }
  factored_hpp_groups_example(a.data(), b.data(), c.data(), d.data());
  for (double v : d) ASSERT_NEAR(v, 1.0, 1e-13);
}

TEST(FactoredExample, SolvesAlongY) {
  // x = 1 everywhere: d = row sums, 1.5 inside and 1.25 on the first and last row of each system.
  std::vector<double> d(64 * 64 * 64);
  for (std::size_t o = 0; o < d.size(); ++o) {
    const std::size_t y = (o / 64) % 64;
    d[o] = (y == 0 || y == 63) ? 1.25 : 1.5;
  }
  factored_hpp_example(d.data());
  for (double v : d) ASSERT_NEAR(v, 1.0, 1e-14);
}

TEST(FactoredExample, HeaderSnippetMatchesTheTestedCode) {
  const auto root = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  std::ifstream header(root / "include/triax/factored.hpp"), self(__FILE__);
  ASSERT_TRUE(header && self) << "source tree not found from " << __FILE__;
  std::stringstream h, s;
  h << header.rdbuf();
  s << self.rdbuf();
  std::istringstream lines(h.str());
  std::string line;
  bool inside = false;
  int checked = 0;
  while (std::getline(lines, line)) {
    if (line.find("@code") != std::string::npos) {
      inside = true;
    } else if (line.find("@endcode") != std::string::npos) {
      inside = false;
    } else if (inside) {
      const std::size_t start = line.find_first_not_of(" /");
      if (start == std::string::npos) continue;
      ++checked;
      EXPECT_NE(s.str().find(line.substr(start)), std::string::npos)
          << "factored.hpp: the example line\n  " << line.substr(start) << "\nis not in " << __FILE__;
    }
  }
  EXPECT_GT(checked, 2);
}

}  // namespace
}  // namespace triax::test
