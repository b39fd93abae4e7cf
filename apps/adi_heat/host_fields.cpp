#include <chrono>

#include "fields.hpp"
#include "stencil.hpp"

namespace adi {

template <class T>
HostFields<T>::HostFields(std::int64_t n, const std::vector<T>& u0, Coefficients<T> k)
    : HostArrays<T>(u0, u0.size(), k), n_(n) {}

template <class T>
void HostFields<T>::explicit_rhs(T scale) {
  const std::int64_t n = n_;
  const T* u = this->u_.data();
  T* out = this->d1_.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < n; ++i) out[(k * n + j) * n + i] = dt_laplacian_at(u, n, i, j, k, scale);
    }
  }
}

void HostStepClock::mark(int index) {
  marks_[index] = std::chrono::duration<double>(
                      std::chrono::steady_clock::now().time_since_epoch()).count();
}

void HostStepClock::add_elapsed(double* seconds) {
  for (int axis = 0; axis < 3; ++axis) seconds[axis] += marks_[axis + 1] - marks_[axis];
}

template class HostFields<float>;
template class HostFields<double>;

}  // namespace adi
