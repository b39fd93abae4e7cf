#pragma once
// What one time step needs from memory, on the host or on a GPU: the solution u, two
// right-hand-side buffers, the three broadcast coefficients, the explicit operator, and a clock
// around the three solves. heat_problem.cpp steps either kind through the same template.

#include <cstdint>
#include <utility>
#include <vector>

namespace adi {

// One value per diagonal for every row of every system (the layouts broadcast them).
template <class T>
struct Coefficients {
  T a, b, c;
};

// Timestamps 0..3 bracket the solves along x, y and z of one step.
inline constexpr int step_marks = 4;

// The host's clock around the solves: they return when they are done, so a steady clock
// brackets them exactly. Shared by the fields of one rank and of many.
class HostStepClock {
 public:
  void mark(int index);
  // Adds the time between consecutive marks of this step to seconds[0..2].
  void add_elapsed(double* seconds);

 private:
  double marks_[step_marks] = {};
};

// The host arrays of a step: u (u_size values: on many ranks with ghost layers), the two
// right-hand sides (rhs_size values) and the coefficients. Shared by the fields of one rank and
// of many.
template <class T>
class HostArrays : public HostStepClock {
 public:
  HostArrays(std::vector<T> u, std::size_t rhs_size, Coefficients<T> k)
      : u_(std::move(u)), d1_(rhs_size), d2_(rhs_size), coefficients_{k.a, k.b, k.c} {}
  T* u() { return u_.data(); }
  T* d1() { return d1_.data(); }
  T* d2() { return d2_.data(); }
  const T* a() const { return &coefficients_[0]; }
  const T* b() const { return &coefficients_[1]; }
  const T* c() const { return &coefficients_[2]; }
  std::size_t u_size() const { return u_.size(); }
  std::size_t rhs_size() const { return d1_.size(); }

 protected:
  std::vector<T> u_, d1_, d2_;
  T coefficients_[3];
};

template <class T>
class HostFields : public HostArrays<T> {
 public:
  HostFields(std::int64_t n, const std::vector<T>& u0, Coefficients<T> coefficients);
  // d1 = dt (Lx + Ly + Lz) u, scale = dt / h^2.
  void explicit_rhs(T scale);
  std::vector<T> u_on_host() const { return this->u_; }

 private:
  std::int64_t n_;
};

}  // namespace adi
