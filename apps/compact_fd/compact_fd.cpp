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
triax::Stencil<T> pade_rhs(T h) {
  const T inner = T(3) / (T(4) * h), edge = T(1) / (T(2) * h);
  const T closure[3] = {T(-5) * edge, T(4) * edge, edge};  // f0, f1, f2 on row 0
  triax::Stencil<T> s;
  s.interior[1] = -inner;  // f[i-1]
  s.interior[3] = inner;   // f[i+1]
  for (int t = 0; t < 3; ++t) {
    s.first[0][t] = closure[t];
    s.last[0][t] = -closure[t];  // row n-1 mirrors row 0: taps counted from the end
  }
  // Rows 1 and n-2 take the interior formula, written from their edge: f0 and f2 (f[n-1] and
  // f[n-3] from the end, where the sign turns).
  s.first[1][0] = -inner;
  s.first[1][2] = inner;
  s.last[1][0] = inner;
  s.last[1][2] = -inner;
  return s;
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
    : rhs_(pade_rhs(h)), solver_(make_solver<T>(backend, e, axis, stream)) {}

template void pade_matrix(std::int64_t, std::vector<float>&, std::vector<float>&, std::vector<float>&);
template void pade_matrix(std::int64_t, std::vector<double>&, std::vector<double>&, std::vector<double>&);
template triax::Stencil<float> pade_rhs(float);
template triax::Stencil<double> pade_rhs(double);
template class Derivative<float>;
template class Derivative<double>;

}  // namespace cfd
