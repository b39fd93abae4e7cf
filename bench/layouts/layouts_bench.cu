// triax-bench-layouts: paper 002 on the GPU (issue 31). Rows, each against the copy measured in
// the same run (an int4 grid-stride kernel, 2 x bytes / time):
//   layout   Flat, Full-Interleaved, Unified-Vector at 256..256000 systems of 64..512 rows,
//            solved in place by triax::Solver (automatic), beside cuSPARSE gtsvInterleavedBatch
//            (algorithms 0, 1, 2; its buffer from _bufferSizeExt) on the interleaved data;
//   var      VarSolver, back to back: lengths uniform in 256..512, and heavy-tailed (log-uniform
//            8..65536); GB/s counts the real rows only; beside each, its bound (the same plan
//            with TRIAX_CUDA_VAR_B2B_BOUND=1: the same launches, grids, loads and stores with no
//            arithmetic) and the one-pass bound (a, b, c, d read and x written once per real row,
//            back to back, in 16-byte vectors: what a one-pass design could reach). PASS at 85%
//            of the copy, or, where the bound is below that, at 90% of the bound. --var-variants
//            repeats the rows per TRIAX_CUDA_VAR_B2B_VARIANT value, in this process;
//   padded   VarSolver on Full-Interleaved storage padded to 512 (lengths uniform 256..512)
//            against triax::Solver on the fixed batch of 512 (the CP form);
//   convert  triax::layouts::convert between the layouts (2 x elements moved); the bar (85% of
//            the copy) applies to whole arrays, not to one component of a Unified-Vector buffer.
// Bytes of a solve: 5 values per row (a, b, c, d read, x written), in place. Times: median of
// --reps event-timed calls. Writes every row as JSON to the path given by --json.
//
// Each layout row also times its bound (bound_kernel): what the in-place solve must move, moved
// without the solve, on the same buffers in the same run. A bar the bound itself misses (bound
// below 85% of the copy, or under 2x cuSPARSE) is judged as >= 90% of the bound instead, and the
// row says so. --layout-only: the layout grid alone; --min-count N: its counts >= N only;
// --layout NAME: that layout's rows only (flat, interleaved or unified; repeatable).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../env_scope.hpp"
#include "../stream_passes.cuh"
#include "triax/layouts.hpp"
#include "triax/triax.hpp"
#include "triax/varbatch.hpp"

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, \
                   __LINE__);                                                              \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CHECK_SPARSE(call)                                                        \
  do {                                                                            \
    cusparseStatus_t s_ = (call);                                                 \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "%s failed: %d (%s:%d)\n", #call, int(s_), __FILE__, __LINE__); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

int reps = 10;
bool quick = false;
bool var_only = false;      // --var-only: the var and padded rows only (A/B runs of them)
bool convert_only = false;  // --convert-only: skip the variable batches and the layout grid
bool layout_only = false;   // --layout-only: the layout grid alone
std::int64_t min_count = 0;  // --min-count: grid counts below it left out
std::vector<std::string> only_layouts;  // --layout: these layouts' rows only (empty: all)
std::vector<std::string> var_variants = {""};  // --var-variants: "" = the library's default
std::string json_rows;
double copy_gbps = 0;

void add_json(const std::string& row) {
  json_rows += (json_rows.empty() ? "  " : ",\n  ") + row;
}

struct Buffer {
  void* p = nullptr;
  explicit Buffer(std::size_t bytes) { CHECK_CUDA(cudaMalloc(&p, std::max<std::size_t>(bytes, 16))); }
  ~Buffer() { cudaFree(p); }
  Buffer(const Buffer&) = delete;
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

/// Median ms of `reps` calls of f (each between two events), after `prepare` (not timed).
double time_ms(const std::function<void()>& f, const std::function<void()>& prepare = {}) {
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  if (prepare) prepare();
  f();  // warm up
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    if (prepare) prepare();
    CHECK_CUDA(cudaEventRecord(e0));
    f();
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

__global__ void copy_int4(const int4* __restrict__ in, int4* __restrict__ out, std::size_t words) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

// The bound of an in-place solve: every row of every system read from a, b, c and d and one value
// per row written into d's place, consecutive threads on consecutive addresses as in the solve
// (a system's rows for Flat, a row's systems for Full-Interleaved and Unified-Vector: both are
// the buffers in address order). Flat and Full-Interleaved (Units = false): `count` elements of
// four arrays, 16-byte vectors. Unified-Vector (Units = true): `count` units of a, b, c, d in one
// buffer, each read as one (float) or two (double) 16-byte vectors, the d component written back:
// 4 of every 16 bytes, so DRAM carries whole sectors back. No arithmetic but the sum that keeps
// every load alive.
template <class T, bool Units>
__global__ void bound_kernel(const T* a, const T* b, const T* c, T* d, std::size_t count) {
  using V = std::conditional_t<sizeof(T) == 4, float4, double2>;
  constexpr int per = 16 / sizeof(T);
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if constexpr (Units) {
    if (i >= count) return;
    const V* u = reinterpret_cast<const V*>(a + 4 * i);
    if constexpr (sizeof(T) == 4) {
      const V v = u[0];
      d[4 * i + 3] = (v.x + v.y) + (v.z + v.w);
    } else {
      const V v0 = u[0], v1 = u[1];
      d[4 * i + 3] = (v0.x + v0.y) + (v1.x + v1.y);
    }
  } else {
    if (i < count / per) {
      T e[4][per];
      const T* src[4] = {a, b, c, d};
      for (int op = 0; op < 4; ++op) {
        const V v = reinterpret_cast<const V*>(src[op])[i];
        std::memcpy(e[op], &v, sizeof(V));
      }
      for (int k = 0; k < per; ++k) e[3][k] = (e[0][k] + e[1][k]) + (e[2][k] + e[3][k]);
      V out;
      std::memcpy(&out, e[3], sizeof(V));
      reinterpret_cast<V*>(d)[i] = out;
    }
    const std::size_t tail = count / per * per + i;  // the last count % per elements
    if (tail < count) d[tail] = (a[tail] + b[tail]) + (c[tail] + d[tail]);
  }
}

template <class T, bool Units>
void run_bound(const T* a, const T* b, const T* c, T* d, std::size_t rows) {
  const std::size_t threads = Units ? rows : std::max<std::size_t>(rows / (16 / sizeof(T)), 1);
  const unsigned blocks = static_cast<unsigned>((threads + 255) / 256);
  bound_kernel<T, Units><<<blocks, 256>>>(a, b, c, d, rows);
  CHECK_CUDA(cudaGetLastError());
}

/// The row's verdict: each bar met outright, or, where the bound itself misses it, by >= 90% of
/// the bound (said in the text).
struct Verdict {
  bool pass;
  std::string text;
};
Verdict judge(double g, double speedup, double bound_g, double bound_speedup) {
  const double of_bound = g / bound_g;
  char buf[160];
  std::string notes;
  bool pass = true;
  const auto bar = [&](bool met, bool reachable, const char* what) {
    if (met) return;
    if (reachable) {
      pass = false;
      return;
    }
    pass = pass && of_bound >= 0.9;
    notes += std::string("; ") + what;
  };
  std::snprintf(buf, sizeof buf, "%s out of reach: bound %.1f%% of copy", "85% of copy",
                100 * bound_g / copy_gbps);
  bar(g >= 0.85 * copy_gbps, bound_g >= 0.85 * copy_gbps, buf);
  std::snprintf(buf, sizeof buf, "2x out of reach: bound %.2fx cusparse", bound_speedup);
  bar(speedup >= 2, bound_speedup >= 2, buf);
  std::string text = pass ? " PASS" : " FAIL";
  if (!notes.empty()) {
    std::snprintf(buf, sizeof buf, " (%.1f%% of bound", 100 * of_bound);
    text += buf + notes + ")";
  }
  return {pass, text};
}

// Diagonally dominant values: kind 0 off-diagonal / right-hand side in [-0.5, 0.5], kind 1 the
// diagonal in [2, 3]; kind 2 a Unified-Vector buffer (component e % 4: 1 is the diagonal).
template <class T>
__global__ void fill(T* p, std::size_t n, int kind, unsigned seed) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(e) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const T u = T(h & 0xffff) / T(65536);
    const bool diag = kind == 1 || (kind == 2 && e % 4 == 1);
    p[e] = diag ? T(2) + u : u - T(0.5);
  }
}

template <class T>
void fill_values(T* p, std::size_t n, int kind, unsigned seed) {
  fill<T><<<1024, 256>>>(p, n, kind, seed);
  CHECK_CUDA(cudaGetLastError());
}

void measure_copy() {
  const std::size_t bytes = std::size_t(1) << 30;
  Buffer a(bytes), b(bytes);
  CHECK_CUDA(cudaMemset(a.p, 1, bytes));
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double ms = time_ms([&] {
    copy_int4<<<sms * 16, 512>>>(a.as<int4>(), b.as<int4>(), bytes / 16);
  });
  copy_gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  std::printf("copy: %.1f GB/s (int4 kernel, 1 GiB)\n", copy_gbps);
  add_json("{\"kind\": \"copy\", \"gbps\": " + std::to_string(copy_gbps) + "}");
}

double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

/// The rows so far, rewritten after each section, so that a caller's timeout keeps them.
void write_json(const std::string& path) {
  if (path.empty()) return;
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "{\"copy_gbps\": %f, \"rows\": [\n%s\n]}\n", copy_gbps, json_rows.c_str());
    std::fclose(f);
  }
}

template <class T>
cusparseStatus_t il_buffer(cusparseHandle_t h, int algo, int m, T* dl, T* d, T* du, T* x, int count,
                           size_t* bytes) {
  if constexpr (sizeof(T) == 4) {
    return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
  } else {
    return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
  }
}
template <class T>
cusparseStatus_t il_solve(cusparseHandle_t h, int algo, int m, T* dl, T* d, T* du, T* x, int count,
                          void* buffer) {
  if constexpr (sizeof(T) == 4) {
    return cusparseSgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, buffer);
  } else {
    return cusparseDgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, buffer);
  }
}

const char* prec(std::size_t size) { return size == 4 ? "float" : "double"; }

// One grid point: the three layouts by triax, gtsvInterleavedBatch on the interleaved data.
template <class T>
void layout_point(cusparseHandle_t handle, std::int64_t n, std::int64_t count) {
  const std::size_t rows = std::size_t(n) * std::size_t(count);
  const double bytes = 5.0 * double(rows) * sizeof(T);
  Buffer a(rows * sizeof(T)), b(rows * sizeof(T)), c(rows * sizeof(T)), d(rows * sizeof(T));
  Buffer wa(rows * sizeof(T)), wb(rows * sizeof(T)), wc(rows * sizeof(T)), wd(rows * sizeof(T));
  fill_values(a.as<T>(), rows, 0, 1);
  fill_values(b.as<T>(), rows, 1, 2);
  fill_values(c.as<T>(), rows, 0, 3);
  fill_values(d.as<T>(), rows, 0, 4);
  // cuSPARSE: best of its algorithms on the interleaved data (it overwrites dl, d, du, x: the
  // inputs are restored before each call, untimed).
  double best_ms = 1e30;
  int best_algo = -1;
  std::size_t best_bytes = 0;
  for (int algo = 0; algo <= 2; ++algo) {
    size_t ws = 0;
    if (il_buffer<T>(handle, algo, int(n), wa.as<T>(), wb.as<T>(), wc.as<T>(), wd.as<T>(),
                     int(count), &ws) != CUSPARSE_STATUS_SUCCESS) {
      continue;
    }
    Buffer w(ws);
    const double ms = time_ms(
        [&] {
          CHECK_SPARSE(il_solve<T>(handle, algo, int(n), wa.as<T>(), wb.as<T>(), wc.as<T>(),
                                   wd.as<T>(), int(count), w.p));
        },
        [&] {
          CHECK_CUDA(cudaMemcpy(wa.p, a.p, rows * sizeof(T), cudaMemcpyDeviceToDevice));
          CHECK_CUDA(cudaMemcpy(wb.p, b.p, rows * sizeof(T), cudaMemcpyDeviceToDevice));
          CHECK_CUDA(cudaMemcpy(wc.p, c.p, rows * sizeof(T), cudaMemcpyDeviceToDevice));
          CHECK_CUDA(cudaMemcpy(wd.p, d.p, rows * sizeof(T), cudaMemcpyDeviceToDevice));
        });
    std::printf("  cusparse gtsvInterleavedBatch algo %d %s n %ld count %ld: %.4f ms, %.1f GB/s, "
                "buffer %zu B\n",
                algo, prec(sizeof(T)), long(n), long(count), ms, gbps(bytes, ms), ws);
    add_json("{\"kind\": \"cusparse\", \"algo\": " + std::to_string(algo) + ", \"precision\": \"" +
             prec(sizeof(T)) + "\", \"n\": " + std::to_string(n) + ", \"count\": " +
             std::to_string(count) + ", \"ms\": " + std::to_string(ms) +
             ", \"buffer_bytes\": " + std::to_string(ws) + "}");
    if (ms < best_ms) {
      best_ms = ms;
      best_algo = algo;
      best_bytes = ws;
    }
  }
  // triax on each layout, in place; the Unified-Vector one in one buffer of 4 rows' values.
  Buffer uv(4 * rows * sizeof(T));
  fill_values(uv.as<T>(), 4 * rows, 2, 5);
  const std::pair<const char*, triax::OperandLayouts> cases[] = {
      {"flat", triax::OperandLayouts(triax::layouts::flat(n, count))},
      {"interleaved", triax::OperandLayouts(triax::layouts::interleaved(n, count))},
      {"unified", triax::layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    if (!only_layouts.empty() &&
        std::find(only_layouts.begin(), only_layouts.end(), name) == only_layouts.end()) {
      continue;
    }
    triax::Solver<T> s(triax::Backend::cuda, l, 0);
    const bool unified = std::strcmp(name, "unified") == 0;
    // Flat and Full-Interleaved share the four buffers: the values differ in order only.
    T* pa = unified ? uv.as<T>() : a.as<T>();
    T* pb = unified ? uv.as<T>() : b.as<T>();
    T* pc = unified ? uv.as<T>() : c.as<T>();
    T* pd = unified ? uv.as<T>() : wd.as<T>();
    if (!unified) CHECK_CUDA(cudaMemcpy(wd.p, d.p, rows * sizeof(T), cudaMemcpyDeviceToDevice));
    const double ms = time_ms([&] { s.solve_in_place(pa, pb, pc, pd); });
    const double g = gbps(bytes, ms);
    // The bound on the same buffers (it overwrites d's place with finite values, after the solve).
    const double bound_ms = time_ms([&] {
      if (unified) {
        run_bound<T, true>(pa, pb, pc, pd, rows);
      } else {
        run_bound<T, false>(pa, pb, pc, pd, rows);
      }
    });
    const double bound_g = gbps(bytes, bound_ms);
    const bool big = count >= 25600;
    const Verdict v = judge(g, best_ms / ms, bound_g, best_ms / bound_ms);
    std::printf("layout %-11s %s n %4ld count %6ld: %.4f ms %7.1f GB/s %5.1f%% of copy, %.2fx "
                "best cusparse (algo %d); workspace %zu B vs cusparse %zu B [%s]; bound %.4f ms "
                "%5.1f%% of copy, %5.1f%% of bound%s\n",
                name, prec(sizeof(T)), long(n), long(count), ms, g, 100 * g / copy_gbps,
                best_ms / ms, best_algo, s.workspace_bytes(), best_bytes,
                std::string(triax::to_string(s.algorithm())).c_str(), bound_ms,
                100 * bound_g / copy_gbps, 100 * g / bound_g, big ? v.text.c_str() : "");
    add_json("{\"kind\": \"layout\", \"layout\": \"" + std::string(name) + "\", \"precision\": \"" +
             prec(sizeof(T)) + "\", \"n\": " + std::to_string(n) + ", \"count\": " +
             std::to_string(count) + ", \"ms\": " + std::to_string(ms) + ", \"gbps\": " +
             std::to_string(g) + ", \"copy_fraction\": " + std::to_string(g / copy_gbps) +
             ", \"vs_cusparse\": " + std::to_string(best_ms / ms) + ", \"workspace_bytes\": " +
             std::to_string(s.workspace_bytes()) + ", \"cusparse_buffer_bytes\": " +
             std::to_string(best_bytes) + ", \"algorithm\": \"" +
             std::string(triax::to_string(s.algorithm())) + "\", \"bound_ms\": " +
             std::to_string(bound_ms) + ", \"bound_gbps\": " + std::to_string(bound_g) +
             ", \"bound_fraction\": " + std::to_string(g / bound_g) +
             ", \"bound_copy_fraction\": " + std::to_string(bound_g / copy_gbps) +
             ", \"verdict\": \"" + (big ? (v.pass ? "pass" : "fail") : "none") + "\"}");
  }
}

/// Median ms of the one-pass bound over `rows` values of a, b, c, d (x written over d).
template <class T>
double one_pass_ms(T* a, T* b, T* c, T* d, std::size_t rows) {
  using V = triax::bench::stream::Vec<T>;
  const auto vectors = static_cast<std::int64_t>(rows / (16 / sizeof(T)));
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return time_ms([&] {
    triax::bench::stream::read_write_pass<T><<<sms * 4, 512>>>(
        reinterpret_cast<const V*>(a), reinterpret_cast<const V*>(b),
        reinterpret_cast<const V*>(c), reinterpret_cast<const V*>(d), reinterpret_cast<V*>(d),
        vectors);
  });
}

template <class T>
void var_row(const char* name, const std::vector<std::int64_t>& lengths) {
  const auto layout = triax::VarLayout::back_to_back(lengths);
  const std::size_t span = std::size_t(layout.span());
  Buffer a(span * sizeof(T)), b(span * sizeof(T)), c(span * sizeof(T)), d(span * sizeof(T));
  fill_values(a.as<T>(), span, 0, 1);
  fill_values(b.as<T>(), span, 1, 2);
  fill_values(c.as<T>(), span, 0, 3);
  fill_values(d.as<T>(), span, 0, 4);
  const double bytes = 5.0 * double(layout.total_rows()) * sizeof(T);
  const auto solve_ms = [&] {
    triax::VarSolver<T> s(triax::Backend::cuda, layout);
    const double ms =
        time_ms([&] { s.solve_in_place(a.as<T>(), b.as<T>(), c.as<T>(), d.as<T>()); });
    return std::pair(ms, s.workspace_bytes());
  };
  // The bound overwrites d with a + b + c + d: the solves after it see other right-hand sides
  // (the same matrices, diagonally dominant), which changes nothing in their work.
  const double ms_one = one_pass_ms(a.as<T>(), b.as<T>(), c.as<T>(), d.as<T>(), span);
  using Env = std::vector<std::pair<std::string, std::string>>;
  for (const std::string& variant : var_variants) {
    Env env;
    if (!variant.empty()) env.emplace_back("TRIAX_CUDA_VAR_B2B_VARIANT", variant);
    const triax::bench::EnvScope chosen(env);
    const auto [ms, workspace] = solve_ms();
    double ms_bound = 0;
    {
      const Env on = {{"TRIAX_CUDA_VAR_B2B_BOUND", "1"}};
      const triax::bench::EnvScope bound(on);
      ms_bound = solve_ms().first;
    }
    const double g = gbps(bytes, ms), g_bound = gbps(bytes, ms_bound), g_one = gbps(bytes, ms_one);
    const bool pass = g >= 0.85 * copy_gbps || (g_bound < 0.85 * copy_gbps && g >= 0.9 * g_bound);
    const std::string label = variant.empty() ? "default" : variant;
    std::printf("var %-13s %s [%s] systems %6zu rows %9ld: %.4f ms %7.1f GB/s %5.1f%% of copy; "
                "bound %.4f ms %5.1f%% of copy, solve %5.1f%% of bound; one-pass bound %.4f ms "
                "%5.1f%% of copy; workspace %zu B%s\n",
                name, prec(sizeof(T)), label.c_str(), lengths.size(), long(layout.total_rows()), ms,
                g, 100 * g / copy_gbps, ms_bound, 100 * g_bound / copy_gbps, 100 * g / g_bound,
                ms_one, 100 * g_one / copy_gbps, workspace, pass ? " PASS" : " FAIL");
    add_json("{\"kind\": \"var\", \"case\": \"" + std::string(name) + "\", \"variant\": \"" +
             label + "\", \"precision\": \"" + prec(sizeof(T)) + "\", \"systems\": " +
             std::to_string(lengths.size()) + ", \"rows\": " +
             std::to_string(layout.total_rows()) + ", \"ms\": " + std::to_string(ms) +
             ", \"gbps\": " + std::to_string(g) + ", \"copy_fraction\": " +
             std::to_string(g / copy_gbps) + ", \"bound_ms\": " + std::to_string(ms_bound) +
             ", \"bound_fraction\": " + std::to_string(g / g_bound) + ", \"one_pass_ms\": " +
             std::to_string(ms_one) + ", \"workspace_bytes\": " + std::to_string(workspace) +
             ", \"pass\": " + (pass ? "true" : "false") + "}");
  }
}

template <class T>
void var_rows() {
  std::mt19937_64 g(2026);
  std::uniform_int_distribution<std::int64_t> uniform(256, 512);
  std::vector<std::int64_t> lengths(quick ? 2560 : 25600);
  for (auto& l : lengths) l = uniform(g);
  var_row<T>("uniform256-512", lengths);
  std::uniform_real_distribution<double> logu(std::log(8.0), std::log(65536.0));
  std::vector<std::int64_t> tail(quick ? 400 : 4000);
  for (auto& l : tail) l = std::llround(std::exp(logu(g)));
  var_row<T>("heavy8-65536", tail);
  // Padded NCP on Full-Interleaved storage against the fixed batch of the longest length.
  const std::int64_t n = 512, count = quick ? 2560 : 25600;
  const std::size_t rows = std::size_t(n) * std::size_t(count);
  Buffer a(rows * sizeof(T)), b(rows * sizeof(T)), c(rows * sizeof(T)), d(rows * sizeof(T));
  fill_values(a.as<T>(), rows, 0, 1);
  fill_values(b.as<T>(), rows, 1, 2);
  fill_values(c.as<T>(), rows, 0, 3);
  fill_values(d.as<T>(), rows, 0, 4);
  const triax::Layout il = triax::layouts::interleaved(n, count);
  lengths.resize(std::size_t(count));
  triax::VarSolver<T> var(triax::Backend::cuda, triax::VarLayout::padded(il, 0, lengths));
  triax::Solver<T> fixed(triax::Backend::cuda, il, 0);
  const double ms_var =
      time_ms([&] { var.solve_in_place(a.as<T>(), b.as<T>(), c.as<T>(), d.as<T>()); });
  const double ms_fixed =
      time_ms([&] { fixed.solve_in_place(a.as<T>(), b.as<T>(), c.as<T>(), d.as<T>()); });
  std::printf("padded interleaved NCP %s %ld systems (256..512 of 512): %.4f ms; fixed batch of "
              "512 (CP form): %.4f ms; ratio %.3f%s\n",
              prec(sizeof(T)), long(count), ms_var, ms_fixed, ms_var / ms_fixed,
              ms_var <= 1.05 * ms_fixed   ? " PASS"
              : ms_var <= 1.2 * ms_fixed ? " (within 1.2x, not 5%) FAIL"
                                         : " FAIL");
  add_json("{\"kind\": \"padded\", \"precision\": \"" + std::string(prec(sizeof(T))) +
           "\", \"count\": " + std::to_string(count) + ", \"ms_ncp\": " + std::to_string(ms_var) +
           ", \"ms_fixed\": " + std::to_string(ms_fixed) + "}");
}

template <class T>
void convert_rows() {
  const std::int64_t n = 512, count = quick ? 2560 : 25600;
  const std::size_t rows = std::size_t(n) * std::size_t(count);
  Buffer src(4 * rows * sizeof(T)), dst(4 * rows * sizeof(T));
  fill_values(src.as<T>(), 4 * rows, 0, 9);
  const auto u = triax::layouts::unified_vector(n, count);
  const std::tuple<const char*, triax::Layout, triax::Layout> cases[] = {
      {"flat->interleaved", triax::layouts::flat(n, count), triax::layouts::interleaved(n, count)},
      {"interleaved->flat", triax::layouts::interleaved(n, count), triax::layouts::flat(n, count)},
      {"flat->unified.b", triax::layouts::flat(n, count), u.b},
      {"unified.d->flat", u.d, triax::layouts::flat(n, count)},
      // All four operands at once (a, b, c, d one after another in one buffer <-> one
      // Unified-Vector buffer): every sector read and written whole, unlike one component.
      {"flat4->unified", triax::Layout::strided({4, n, count}, {n * count, 1, n}),
       triax::Layout::strided({4, n, count}, {1, 4 * count, 4})},
      {"unified->flat4", triax::Layout::strided({4, n, count}, {1, 4 * count, 4}),
       triax::Layout::strided({4, n, count}, {n * count, 1, n})}};
  for (const auto& [name, from, to] : cases) {
    const double ms = time_ms([&] {
      triax::layouts::convert<T>(triax::Backend::cuda, from, src.as<T>(), to, dst.as<T>());
    });
    const double g = gbps(2.0 * double(from.size()) * sizeof(T), ms);
    // One Unified-Vector component alone: each 32-byte sector on that side holds a quarter of
    // our values (the other operands' the rest), so the bus carries up to 4x the bytes counted.
    const bool one_component = from.rank() == 2 && (from.stride(1) == 4 || to.stride(1) == 4);
    std::printf("convert %-18s %s %ld x %ld: %.4f ms %7.1f GB/s %5.1f%% of copy%s\n", name,
                prec(sizeof(T)), long(n), long(count), ms, g, 100 * g / copy_gbps,
                one_component ? " (one of 4 interleaved components: no bar)"
                : g >= 0.85 * copy_gbps ? " PASS" : " FAIL");
    add_json("{\"kind\": \"convert\", \"case\": \"" + std::string(name) + "\", \"precision\": \"" +
             prec(sizeof(T)) + "\", \"ms\": " + std::to_string(ms) + ", \"gbps\": " +
             std::to_string(g) + ", \"copy_fraction\": " + std::to_string(g / copy_gbps) + "}");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--json" && k + 1 < argc) {
      json_path = argv[++k];
    } else if (a == "--reps" && k + 1 < argc) {
      reps = std::max(3, std::atoi(argv[++k]));
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--var-only") {
      var_only = true;
    } else if (a == "--var-variants" && k + 1 < argc) {
      // Comma-separated TRIAX_CUDA_VAR_B2B_VARIANT values, each timed with its own bound.
      var_variants.clear();
      std::string list = argv[++k];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t end = std::min(list.find(',', at), list.size());
        var_variants.push_back(list.substr(at, end - at));
        at = end + 1;
      }
    } else if (a == "--convert-only") {
      convert_only = true;
    } else if (a == "--layout-only") {
      layout_only = true;
    } else if (a == "--min-count" && k + 1 < argc) {
      min_count = std::atoll(argv[++k]);
    } else if (a == "--layout" && k + 1 < argc) {
      only_layouts.push_back(argv[++k]);
    } else {
      std::fprintf(stderr, "usage: triax-bench-layouts [--json PATH] [--reps N] [--quick] "
                           "[--var-only] [--var-variants LIST] [--convert-only] "
                           "[--layout-only] [--min-count N] [--layout flat|interleaved|unified]...\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows survive a timeout of the caller
  measure_copy();
  // The short sections first: the grid is the long one.
  if (!convert_only && !layout_only) {
    var_rows<float>();
    var_rows<double>();
  }
  if (var_only) {
    write_json(json_path);
    return 0;
  }
  if (!layout_only) {
    convert_rows<float>();
    convert_rows<double>();
  }
  write_json(json_path);
  if (convert_only) return 0;
  cusparseHandle_t handle;
  CHECK_SPARSE(cusparseCreate(&handle));
  const std::vector<std::int64_t> counts =
      quick ? std::vector<std::int64_t>{256, 25600} : std::vector<std::int64_t>{256, 2560, 25600, 256000};
  const std::vector<std::int64_t> ns =
      quick ? std::vector<std::int64_t>{64, 512} : std::vector<std::int64_t>{64, 128, 256, 512};
  for (const std::int64_t n : ns) {
    for (const std::int64_t count : counts) {
      if (count < min_count) continue;
      layout_point<float>(handle, n, count);
      layout_point<double>(handle, n, count);
      write_json(json_path);
    }
  }
  cusparseDestroy(handle);
  write_json(json_path);
  return 0;
}
