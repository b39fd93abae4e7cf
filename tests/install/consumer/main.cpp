// Uses an installed triax: solves -x[i-1] + 2 x[i] - x[i+1] = 1 with x = 0 outside, whose
// solution is x[i] = (i + 1)(n - i) / 2.
#include <triax/triax.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  constexpr int n = 50;
  std::vector<double> a(n, -1), b(n, 2), c(n, -1), d(n, 1);
  triax::Solver<double> s(triax::Backend::cpu, triax::Layout::packed({n}), 0);
  s.solve_in_place(a.data(), b.data(), c.data(), d.data());
  for (int i = 0; i < n; ++i) {
    const double want = (i + 1.0) * (n - i) / 2.0;
    if (std::abs(d[i] - want) > 1e-9 * want) {
      std::printf("consumer: x[%d] = %g, want %g\n", i, d[i], want);
      return 1;
    }
  }
  std::printf("consumer: ok\n");
  return 0;
}
