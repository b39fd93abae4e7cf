// One timing driver for two builds of triax (scripts/ab-cpu): the same source, allocation and
// fill, linked once against each library. Usage: abdrv <label> <huge:0|1> <reps>
// Prints one line per precision and axis: label, huge, precision, axis, median ms, min ms.
// AB_N in the environment sets the cube's edge (default 256; e.g. 64 with one thread times the
// kernels' arithmetic from the caches rather than memory).
#include <triax/triax.hpp>
#include <sys/mman.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <class T>
T* alloc(std::size_t n, bool huge) {
  const std::size_t bytes = (n * sizeof(T) + (2u << 20) - 1) & ~((2u << 20) - 1);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return static_cast<T*>(p);
}

template <class T>
void run(const char* label, bool huge, int reps) {
  const char* edge = std::getenv("AB_N");
  const std::int64_t n = edge ? std::atoll(edge) : 256, total = n * n * n;
  T *a = alloc<T>(total, huge), *b = alloc<T>(total, huge), *c = alloc<T>(total, huge),
    *d = alloc<T>(total, huge), *d0 = alloc<T>(total, huge);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < total; ++i) {
    std::uint64_t h = (std::uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    const T u = T((h >> 11) & 0xffff) / T(65536);
    a[i] = T(-1) + u * T(0.1);
    c[i] = T(-1) - u * T(0.1);
    b[i] = T(4) + u;
    d0[i] = d[i] = u - T(0.5);
  }
  const auto layout = triax::Layout::packed({n, n, n});
  for (int axis = 0; axis < 3; ++axis) {
    triax::Solver<T> solver(triax::Backend::cpu, layout, axis);
    std::vector<double> ms;
    for (int r = 0; r < reps + 2; ++r) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < total; ++i) d[i] = d0[i];
      const auto t0 = std::chrono::steady_clock::now();
      solver.solve_in_place(a, b, c, d);
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s %d %s %d %.3f %.3f\n", label, int(huge), sizeof(T) == 4 ? "float" : "double",
                axis, ms[ms.size() / 2], ms[0]);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const bool huge = std::atoi(argv[2]) != 0;
  const int reps = std::atoi(argv[3]);
  run<float>(argv[1], huge, reps);
  run<double>(argv[1], huge, reps);
}
