// apps/compact_fd: the fourth-order compact (Pade) first derivative of a 3-D field along each
// axis, through triax::FactoredSolver (compact_fd.hpp). --check-order verifies its convergence at
// two resolutions; --time N times the derivative of an N^3 field along each axis against one copy
// of the field (paper 004's measure; issue 32's bar is 1.3x the copy on the H100).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "compact_fd.hpp"
#ifdef TRIAX_HAS_CUDA
#include "compact_fd_cuda.hpp"
#endif

namespace {

constexpr int exit_skipped = 77;  // CTest's SKIP_RETURN_CODE: --backend cuda without a GPU

void usage() {
  std::puts(
      "usage: compact_fd [--backend cpu|cuda] [--precision float|double] [--check-order]\n"
      "                  [--time N] [--repeats R]\n"
      "  --check-order  N = 33 and 65 points per axis (h = 1/32, 1/64), double: the error of the\n"
      "                 derivative along each axis must fall by order >= 3.5 at points at least a\n"
      "                 quarter of the domain from the boundary along the axis (the interior\n"
      "                 scheme is fourth order; the closure's error decays geometrically, by\n"
      "                 about 0.27 a point, into the interior) and >= 2.7 over every point (the\n"
      "                 boundary closure is third order); exits 1 if not\n"
      "  --time N       times the derivative of an N^3 field along each axis (FactoredSolver::\n"
      "                 solve_stencil: one pass where fused) against one device-to-device copy\n"
      "                 of the field in the same run; prints the ratio");
}

const double omega[3] = {3.1, 2.3, 1.7};
const double phase = 0.4;

double field(double x, double y, double z) {
  return std::sin(omega[0] * x + omega[1] * y + omega[2] * z + phase);
}
double exact_derivative(double x, double y, double z, int axis) {
  return omega[axis] * std::cos(omega[0] * x + omega[1] * y + omega[2] * z + phase);
}

struct Errors {
  double interior = 0, overall = 0;
};

// Derivative along each axis of the sine field on an n^3 grid of [0, 1]^3; errors per axis.
template <class T>
std::vector<Errors> errors_at(triax::Backend backend, std::int64_t n) {
  const cfd::Extents e{n, n, n};
  const double h = 1.0 / static_cast<double>(n - 1);
  const std::size_t total = static_cast<std::size_t>(n * n * n);
  std::vector<T> f(total), df(total);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) f[i + n * (j + n * k)] = T(field(i * h, j * h, k * h));
  std::vector<Errors> out(3);
  for (int axis = 0; axis < 3; ++axis) {
#ifdef TRIAX_HAS_CUDA
    if (backend == triax::Backend::cuda) {
      T* df_dev = static_cast<T*>(cfd::device_alloc(total * sizeof(T)));
      T* f_dev = static_cast<T*>(cfd::device_alloc(total * sizeof(T)));
      cfd::copy_to_device(f_dev, f.data(), total * sizeof(T));
      cfd::Derivative<T> d(backend, e, axis, T(h));
      d(f_dev, df_dev);
      cfd::copy_to_host(df.data(), df_dev, total * sizeof(T));
      cfd::device_free(df_dev);
      cfd::device_free(f_dev);
    } else
#endif
    {
      cfd::Derivative<T> d(backend, e, axis, T(h));
      d(f.data(), df.data());
    }
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t idx[3] = {i, j, k};
          const double err = std::abs(double(df[i + n * (j + n * k)]) -
                                      exact_derivative(i * h, j * h, k * h, axis));
          out[axis].overall = std::max(out[axis].overall, err);
          const double along = idx[axis] * h;
          if (along >= 0.25 && along <= 0.75) out[axis].interior = std::max(out[axis].interior, err);
        }
  }
  return out;
}

int check_order(triax::Backend backend) {
  const auto coarse = errors_at<double>(backend, 33);
  const auto fine = errors_at<double>(backend, 65);
  bool ok = true;
  for (int axis = 0; axis < 3; ++axis) {
    const double oi = std::log2(coarse[axis].interior / fine[axis].interior);
    const double oo = std::log2(coarse[axis].overall / fine[axis].overall);
    const bool pass = oi >= 3.5 && oo >= 2.7;
    ok = ok && pass;
    std::printf("axis %d: interior error %.3e -> %.3e (order %.2f, want >= 3.5); overall %.3e -> "
                "%.3e (order %.2f, want >= 2.7) %s\n",
                axis, coarse[axis].interior, fine[axis].interior, oi, coarse[axis].overall,
                fine[axis].overall, oo, pass ? "ok" : "FAIL");
  }
  std::printf("compact_fd check-order (%s): %s\n", std::string(triax::to_string(backend)).c_str(),
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

template <class T>
int time_field(triax::Backend backend, std::int64_t n, int repeats) {
  const cfd::Extents e{n, n, n};
  const std::size_t total = static_cast<std::size_t>(n * n * n);
  [[maybe_unused]] const std::size_t bytes = total * sizeof(T);
  const double h = 1.0 / static_cast<double>(n - 1);
  const char* prec = sizeof(T) == 4 ? "float" : "double";
#ifdef TRIAX_HAS_CUDA
  if (backend == triax::Backend::cuda) {
    T* f = static_cast<T*>(cfd::device_alloc(bytes));
    T* df = static_cast<T*>(cfd::device_alloc(bytes));
    std::vector<T> host(total);
    for (std::size_t o = 0; o < total; ++o) host[o] = T(std::sin(0.001 * double(o)));
    cfd::copy_to_device(f, host.data(), bytes);
    const float copy = cfd::time_ms([&] { cfd::device_copy(df, f, bytes); }, repeats);
    for (int axis = 0; axis < 3; ++axis) {
      cfd::Derivative<T> d(backend, e, axis, T(h));
      const float ms = cfd::time_ms([&] { d(f, df); }, repeats);
      std::printf("compact_fd cuda %s %lld^3 axis %d: derivative %.3f ms (%s), copy %.3f ms, "
                  "ratio %.2f (bar <= 1.30) %s\n",
                  prec, static_cast<long long>(n), axis, ms, d.fused() ? "one pass" : "two passes",
                  copy, ms / copy, ms / copy <= 1.3 ? "ok" : "over");
    }
    cfd::device_free(f);
    cfd::device_free(df);
    return 0;
  }
#endif
  std::vector<T> f(total), df(total);
#pragma omp parallel for schedule(static)
  for (std::size_t o = 0; o < total; ++o) {
    f[o] = T(std::sin(0.001 * double(o)));
    df[o] = T(0);
  }
  const auto median_ms = [&](auto&& work) {
    work();
    std::vector<double> t;
    for (int k = 0; k < repeats; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      work();
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double copy = median_ms([&] {
#pragma omp parallel for schedule(static)
    for (std::size_t o = 0; o < total; ++o) df[o] = f[o];
  });
  for (int axis = 0; axis < 3; ++axis) {
    cfd::Derivative<T> d(backend, e, axis, T(h));
    const double ms = median_ms([&] { d(f.data(), df.data()); });
    std::printf("compact_fd cpu %s %lld^3 axis %d: derivative %.3f ms, copy %.3f ms, ratio %.2f\n",
                prec, static_cast<long long>(n), axis, ms, copy, ms / copy);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend_name = "cpu", precision = "double";
  bool order = false;
  std::int64_t time_n = 0;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--backend") backend_name = value();
    else if (arg == "--precision") precision = value();
    else if (arg == "--check-order") order = true;
    else if (arg == "--time") time_n = std::stoll(value());
    else if (arg == "--repeats") repeats = std::stoi(value());
    else {
      usage();
      return arg == "--help" ? 0 : 2;
    }
  }
  triax::Backend backend = triax::Backend::cpu;
  if (backend_name == "cuda") {
    backend = triax::Backend::cuda;
#ifdef TRIAX_HAS_CUDA
    if (!cfd::cuda_device_present()) {
      std::puts("compact_fd: no CUDA device: SKIPPED");
      return exit_skipped;
    }
#else
    std::puts("compact_fd: built without CUDA: SKIPPED");
    return exit_skipped;
#endif
  } else if (backend_name != "cpu") {
    usage();
    return 2;
  }
  try {
    int rc = 0;
    if (order) rc = check_order(backend);
    if (time_n > 0) {
      rc |= precision == "float" ? time_field<float>(backend, time_n, repeats)
                                 : time_field<double>(backend, time_n, repeats);
    }
    if (!order && time_n == 0) usage();
    return rc;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "compact_fd: %s\n", ex.what());
    return 1;
  }
}
