#include "compact_fd.hpp"

#include <stdexcept>
#include <string>

namespace cfd {

template <class T>
void pade_matrix(std::int64_t n, std::vector<T>& a, std::vector<T>& b, std::vector<T>& c) {
  if (n < 4) throw std::invalid_argument("compact_fd: n = " + std::to_string(n) + " < 4 points");
  a.assign(n, T(0.25));
  b.assign(n, T(1));
  c.assign(n, T(0.25));
  a[0] = T(0);
  c[0] = T(2);
  a[n - 1] = T(2);
  c[n - 1] = T(0);
}

template <class T>
void rhs_host(const T* f, T* r, const Extents& e, int axis, T h) {
  const std::int64_t stride[3] = {1, e[0], e[0] * e[1]};
  const std::int64_t s = stride[axis], n = e[axis];
  const T interior = T(3) / (T(4) * h), edge = T(1) / (T(2) * h);
  const std::int64_t total = e[0] * e[1] * e[2];
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < total; ++o) {
    const std::int64_t i = (o / s) % n;
    if (i == 0) {
      r[o] = (T(-5) * f[o] + T(4) * f[o + s] + f[o + 2 * s]) * edge;
    } else if (i == n - 1) {
      r[o] = (T(5) * f[o] - T(4) * f[o - s] - f[o - 2 * s]) * edge;
    } else {
      r[o] = (f[o + s] - f[o - s]) * interior;
    }
  }
}

namespace {
template <class T>
triax::FactoredSolver<T> make_solver(triax::Backend backend, const Extents& e, int axis,
                                     void* stream) {
  std::vector<T> a, b, c;
  pade_matrix(e[axis], a, b, c);
  return triax::FactoredSolver<T>(backend, a.data(), b.data(), c.data(), e[axis],
                                  triax::Layout::packed({e[0], e[1], e[2]}), axis,
                                  {.stream = stream});
}
}  // namespace

template <class T>
Derivative<T>::Derivative(triax::Backend backend, const Extents& e, int axis, T h, void* stream)
    : backend_(backend), e_(e), axis_(axis), h_(h), stream_(stream),
      solver_(make_solver<T>(backend, e, axis, stream)) {}

template <class T>
void Derivative<T>::operator()(const T* f, T* df) {
#ifdef TRIAX_HAS_CUDA
  if (backend_ == triax::Backend::cuda) {
    rhs_cuda(f, df, e_, axis_, h_, stream_);
    solver_.solve_in_place(df);
    return;
  }
#endif
  rhs_host(f, df, e_, axis_, h_);
  solver_.solve_in_place(df);
}

template void pade_matrix(std::int64_t, std::vector<float>&, std::vector<float>&, std::vector<float>&);
template void pade_matrix(std::int64_t, std::vector<double>&, std::vector<double>&, std::vector<double>&);
template void rhs_host(const float*, float*, const Extents&, int, float);
template void rhs_host(const double*, double*, const Extents&, int, double);
template class Derivative<float>;
template class Derivative<double>;

}  // namespace cfd
