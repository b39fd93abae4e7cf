#include "heat_problem.hpp"

#include <vector>

#include "advance.hpp"
#include "fields.hpp"
#include "sine_mode.hpp"
#ifdef TRIAX_HAS_CUDA
#include "cuda_fields.hpp"
#endif

namespace adi {
namespace {

// The single-rank plans, one per axis, and the time loop.
template <class T, class Fields>
void advance_one_rank(Fields& fields, const Settings& s, double mu, Result& r) {
  const std::int64_t n = s.n;
  const auto grid = triax::Layout::packed({n, n, n});
  // One value for every row of every system: stride 0 in all three dimensions.
  const auto constant = triax::Layout::strided({n, n, n}, {0, 0, 0});
  const triax::OperandLayouts layouts(constant, constant, constant, grid, grid);
  triax::Solver<T> solve_x(s.backend, layouts, 0), solve_y(s.backend, layouts, 1),
      solve_z(s.backend, layouts, 2);
  adi::advance<T>(fields, solve_x, solve_y, solve_z, s, mu, r);
}

}  // namespace

template <class T>
Result run(const Settings& s) {
  const std::int64_t n = s.n;
  const TimeStep step(s);
  Result r = step.result;
  const GridBlock grid = GridBlock::whole(n);
  auto offset = [n](std::int64_t i, std::int64_t j, std::int64_t k) { return (k * n + j) * n + i; };

  std::vector<T> u0(std::size_t(n * n * n));
  for_each_sine_mode_point(n, grid, [&](std::int64_t i, std::int64_t j, std::int64_t k, double v) {
    u0[offset(i, j, k)] = static_cast<T>(v);
  });

  std::vector<T> u;
  if (s.backend == triax::Backend::cuda) {
#ifdef TRIAX_HAS_CUDA
    CudaFields<T> fields(n, u0, step.matrix<T>());
    advance_one_rank<T>(fields, s, step.mu, r);
    u = fields.u_on_host();
#else
    throw triax::not_compiled("adi_heat: --backend cuda, but this build has no CUDA");
#endif
  } else {
    HostFields<T> fields(n, u0, step.matrix<T>());
    advance_one_rank<T>(fields, s, step.mu, r);
    u = fields.u_on_host();
  }
  r.max_error = max_error(n, grid, r.t_end, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return u[offset(i, j, k)];
  });
  return r;
}

template Result run<float>(const Settings&);
template Result run<double>(const Settings&);

}  // namespace adi
