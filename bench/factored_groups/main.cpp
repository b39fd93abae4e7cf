// triax-bench-factored-groups: one matrix per group of systems (issue 32) on an n^3 cube along
// each axis, float and double: the grouped factored solve with a matrix per plane of the slowest
// other dimension (n groups, the ADI case of coefficients that vary across planes), against the
// one-matrix factored solve and the general solve given the same grouped coefficients, and the
// copy of the array in the same run. GB/s count d read and x written. Bars: the (>= 90%
// of the copy on the GPU, >= 85% along the slowest axis; 80% on the CPU; >= 2.2x the general
// solve) and, for the grouping itself, the grouped time within 1.1x of the one-matrix time.
//   triax-bench-factored-groups [--gpu-only|--cpu-only] [--n N] [--cpu-n N] [--reps R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "triax/factored.hpp"
#include "triax/triax.hpp"

#ifdef TRIAX_BENCH_CUDA
#include <cuda_runtime.h>
#endif

namespace {

struct Times {
  double copy = 0, one = 0, grouped = 0, general = 0;
};

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Per-plane coefficients along `axis`, varying along `group` (the slowest other dimension):
// a, b, c hold n x n values, row i of plane p at i + n p; diagonally dominant, near-Toeplitz.
template <class T>
void plane_matrices(std::int64_t n, std::vector<T>& a, std::vector<T>& b, std::vector<T>& c) {
  a.assign(n * n, T(0.25));
  c.assign(n * n, T(0.25));
  b.resize(n * n);
  for (std::int64_t p = 0; p < n; ++p) {
    for (std::int64_t i = 0; i < n; ++i) b[i + n * p] = T(1.0 + 0.5 * double(p % 16) / 16.0);
  }
}

void print(const char* backend, const char* precision, std::int64_t n, int axis, const Times& t,
           std::size_t bytes) {
  auto gbps = [&](double ms) { return ms > 0 ? 2.0 * double(bytes) / (ms * 1e6) : 0.0; };
  const bool gpu = std::string(backend) == "cuda";
  std::printf(
      "%-4s %-6s n=%-4lld axis=%d groups=%-4lld one %8.3f ms %7.1f GB/s | grouped %8.3f ms"
      " %7.1f GB/s %5.1f%% of copy (bar %s) x%.2f of one (bar 1.10) | general %8.3f ms"
      " x%.2f (bar 2.2)\n",
      backend, precision, static_cast<long long>(n), axis, static_cast<long long>(n), t.one,
      gbps(t.one), t.grouped, gbps(t.grouped), 100.0 * t.copy / t.grouped,
      gpu ? (axis == 0 ? "85" : "90") : "80", t.grouped / t.one, t.general, t.general / t.grouped);
}

// The three plans of one axis; `run` times a callable (host or device clock).
template <class T>
Times measure(triax::Backend backend, std::int64_t n, int axis, const T* d, T* x, const T* da,
              const T* db, const T* dc, const std::vector<T>& a, const std::vector<T>& b,
              const std::vector<T>& c,
              const std::function<double(const std::function<void()>&)>& time,
              const triax::Options& o) {
  const auto packed = triax::Layout::packed({n, n, n});
  const int group = axis == 2 ? 1 : 2;  // the slowest dimension other than the axis
  std::int64_t s[3] = {0, 0, 0};
  s[axis] = 1;
  s[group] = n;
  const auto coefficients = triax::Layout::strided({n, n, n}, {s[0], s[1], s[2]});
  Times t;
  triax::FactoredSolver<T> one(backend, a.data(), b.data(), c.data(), n, packed, axis, o);
  triax::FactoredSolver<T> grouped(backend, a.data(), b.data(), c.data(), coefficients, packed,
                                   axis, o);
  triax::Solver<T> general(
      backend, triax::OperandLayouts(coefficients, coefficients, coefficients, packed, packed),
      axis, o);
  t.one = time([&] { one.solve(d, x); });
  t.grouped = time([&] { grouped.solve(d, x); });
  t.general = time([&] { general.solve(da, db, dc, d, x); });
  return t;
}

template <class T>
void cpu_rows(std::int64_t n, int reps) {
  const std::size_t total = static_cast<std::size_t>(n * n * n);
  std::vector<T> d(total), x(total);
  for (std::size_t o = 0; o < total; ++o) d[o] = T(1) + T(o % 7) / T(8);
  std::vector<T> a, b, c;
  plane_matrices(n, a, b, c);
  auto time = [&](const std::function<void()>& f) {
    f();
    std::vector<double> t;
    for (int k = 0; k < reps; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      t.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
  };
  const double copy = time([&] { std::copy(d.begin(), d.end(), x.begin()); });
  for (int axis = 0; axis < 3; ++axis) {
    Times t = measure<T>(triax::Backend::cpu, n, axis, d.data(), x.data(), a.data(), b.data(),
                         c.data(), a, b, c, time, {});
    t.copy = copy;
    print("cpu", sizeof(T) == 4 ? "float" : "double", n, axis, t, total * sizeof(T));
  }
}

#ifdef TRIAX_BENCH_CUDA
bool cuda_ok(cudaError_t e) {
  if (e != cudaSuccess) std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess;
}

template <class T>
void gpu_rows(std::int64_t n, int reps) {
  const std::size_t total = static_cast<std::size_t>(n * n * n);
  std::vector<T> host(total);
  for (std::size_t o = 0; o < total; ++o) host[o] = T(1) + T(o % 7) / T(8);
  std::vector<T> a, b, c;
  plane_matrices(n, a, b, c);
  T *d = nullptr, *x = nullptr, *da = nullptr, *db = nullptr, *dc = nullptr;
  if (!cuda_ok(cudaMalloc(&d, total * sizeof(T))) || !cuda_ok(cudaMalloc(&x, total * sizeof(T))) ||
      !cuda_ok(cudaMalloc(&da, a.size() * sizeof(T))) ||
      !cuda_ok(cudaMalloc(&db, b.size() * sizeof(T))) ||
      !cuda_ok(cudaMalloc(&dc, c.size() * sizeof(T)))) {
    return;
  }
  cudaMemcpy(d, host.data(), total * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), c.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](const std::function<void()>& f) {
    f();
    std::vector<double> t;
    for (int k = 0; k < reps; ++k) {
      cudaEventRecord(e0, stream);
      f();
      cudaEventRecord(e1, stream);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms);
    }
    return median(t);
  };
  const double copy =
      time([&] { cudaMemcpyAsync(x, d, total * sizeof(T), cudaMemcpyDeviceToDevice, stream); });
  triax::Options o;
  o.stream = stream;
  for (int axis = 0; axis < 3; ++axis) {
    Times t = measure<T>(triax::Backend::cuda, n, axis, d, x, da, db, dc, a, b, c, time, o);
    t.copy = copy;
    print("cuda", sizeof(T) == 4 ? "float" : "double", n, axis, t, total * sizeof(T));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(stream);
  for (T* p : {d, x, da, db, dc}) cudaFree(p);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  bool cpu = true, gpu = true;
  std::int64_t n = 256, cpu_n = 128;
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gpu-only")
      cpu = false;
    else if (arg == "--cpu-only")
      gpu = false;
    else if (arg == "--n" && i + 1 < argc)
      n = std::stoll(argv[++i]);
    else if (arg == "--cpu-n" && i + 1 < argc)
      cpu_n = std::stoll(argv[++i]);
    else if (arg == "--reps" && i + 1 < argc)
      reps = std::stoi(argv[++i]);
    else {
      std::puts(
          "usage: triax-bench-factored-groups [--gpu-only|--cpu-only] [--n N] [--cpu-n N] [--reps "
          "R]");
      return arg == "--help" ? 0 : 2;
    }
  }
  try {
#ifdef TRIAX_BENCH_CUDA
    int devices = 0;
    if (gpu && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
      gpu_rows<float>(n, reps);
      gpu_rows<double>(n, reps);
    } else if (gpu) {
      std::puts("no CUDA device: GPU rows skipped");
    }
#else
    if (gpu) std::puts("built without CUDA: GPU rows skipped");
#endif
    if (cpu) {
      cpu_rows<float>(cpu_n, reps);
      cpu_rows<double>(cpu_n, reps);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "triax-bench-factored-groups: %s\n", e.what());
    return 1;
  }
  return 0;
}
