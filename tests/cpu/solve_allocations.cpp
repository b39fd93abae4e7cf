// "Solve calls allocate nothing" (issue 25): counts the calls to malloc, calloc and realloc that
// steady-state solves make on the cpu and reference backends, with 1, 2 and 16 threads and from
// inside an OpenMP parallel region. Its own executable: it replaces the C allocator's entry
// points for the whole process (forwarding to glibc's), which a sanitizer build cannot share.
#include <omp.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "triax/triax.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void count() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  count();
  return __libc_malloc(size);
}
void* calloc(std::size_t count_, std::size_t size) {
  count();
  return __libc_calloc(count_, size);
}
void* realloc(void* p, std::size_t size) {
  count();
  return __libc_realloc(p, size);
}
}

namespace {

// Allocations made by `solves` solves after two warm-up ones, from the calling thread or from
// each thread of a parallel region of `outer` threads (each with its own plan).
template <class T>
long steady_state_allocations(triax::Backend backend, triax::Algorithm algorithm, int threads,
                              int outer) {
  constexpr std::int64_t n = 64, systems = 96;
  const triax::Layout layout = triax::Layout::packed({n, systems});
  std::vector<std::vector<T>> a(outer), b(outer), c(outer), d(outer);
  std::vector<triax::Solver<T>> solvers;
  for (int t = 0; t < outer; ++t) {
    a[t].assign(n * systems, T(-1));
    b[t].assign(n * systems, T(4));
    c[t].assign(n * systems, T(-1));
    d[t].assign(n * systems, T(1));
    solvers.emplace_back(backend, layout, 0,
                         triax::Options{.algorithm = algorithm, .num_threads = threads});
  }
  const auto solve = [&](int t) {
    solvers[t].solve_in_place(a[t].data(), b[t].data(), c[t].data(), d[t].data());
  };
  const auto run = [&](int rounds) {
    if (outer == 1) {
      for (int r = 0; r < rounds; ++r) solve(0);
      return;
    }
#pragma omp parallel num_threads(outer)
    for (int r = 0; r < rounds; ++r) solve(omp_get_thread_num());
  };
  run(2);
  // The region that runs the solves allocates by itself (libgomp's team, once per region):
  // enter it first, then count only inside it.
  allocations = 0;
  if (outer == 1) {
    counting = true;
    run(10);
    counting = false;
  } else {
#pragma omp parallel num_threads(outer)
    {
#pragma omp barrier
#pragma omp single
      counting = true;
      for (int r = 0; r < 10; ++r) solve(omp_get_thread_num());
#pragma omp barrier
#pragma omp single
      counting = false;
    }
  }
  return allocations.load();
}

}  // namespace

int main() {
  struct Case {
    triax::Backend backend;
    triax::Algorithm algorithm;
  };
  const Case cases[] = {{triax::Backend::cpu, triax::Algorithm::cpu_thomas},
                        {triax::Backend::cpu, triax::Algorithm::cpu_thomas_transpose},
                        {triax::Backend::reference, triax::Algorithm::reference_thomas},
                        {triax::Backend::reference, triax::Algorithm::reference_dense_lu}};
  int failures = 0;
  for (const Case& c : cases) {
    for (int threads : {1, 2, 16}) {
      for (int outer : {1, 2}) {
        for (int precision = 0; precision < 2; ++precision) {
          const long got =
              precision == 0 ? steady_state_allocations<float>(c.backend, c.algorithm, threads, outer)
                             : steady_state_allocations<double>(c.backend, c.algorithm, threads, outer);
          std::printf("%s %-22s %s threads %2d%s: %ld allocations in 10 solves\n",
                      std::string(triax::to_string(c.backend)).c_str(),
                      std::string(triax::to_string(c.algorithm)).c_str(),
                      precision == 0 ? "float " : "double", threads,
                      outer > 1 ? ", inside a parallel region of 2" : "", got);
          if (got != 0) ++failures;
        }
      }
    }
  }
  std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
