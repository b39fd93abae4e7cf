// The GPU rows of triax-bench-factored: cudaEvent timings on one stream, the copy of the same
// array (cudaMemcpyAsync device to device) in the same run, the factored Thomas solve (the
// automatic choice), paper 004's CR in its shared-memory and global-memory variants, the
// arithmetic-free bounds of bound_kernels.cuh, the general triax solve with one broadcast
// matrix, and cuSPARSE gtsv2StridedBatch along x (systems contiguous) with the matrix
// replicated for every system, as that API needs.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../env_scope.hpp"
#include "bound_kernels.cuh"
#include "core/factored/cr_table.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/factored/cr_launch_shape.hpp"
#include "factored_bench.hpp"
#include "triax/factored.hpp"
#include "triax/triax.hpp"

namespace triax::bench::factored {
namespace {

void check_sparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string("cuSPARSE: ") + what + " failed");
}

template <class F>
double median_ms(cudaStream_t stream, int reps, F&& f) {
  cudaEvent_t a, b;
  TRIAX_CUDA_CHECK(cudaEventCreate(&a));
  TRIAX_CUDA_CHECK(cudaEventCreate(&b));
  f();
  std::vector<float> t;
  for (int k = 0; k < reps; ++k) {
    TRIAX_CUDA_CHECK(cudaEventRecord(a, stream));
    f();
    TRIAX_CUDA_CHECK(cudaEventRecord(b, stream));
    TRIAX_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    TRIAX_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  TRIAX_CUDA_CHECK(cudaEventDestroy(a));
  TRIAX_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
T* device_array(std::size_t count) {
  void* p = nullptr;
  TRIAX_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(1, count) * sizeof(T)));
  return static_cast<T*>(p);
}

template <class T>
__global__ void fill(T* p, std::size_t count, T v0, T v1) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = v0 + v1 * T(i % 7);
  }
}

template <class T>
void gtsv(cusparseHandle_t h, int m, const T* dl, const T* d, const T* du, T* x, int batch, void* buf);
template <>
void gtsv<float>(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                 float* x, int batch, void* buf) {
  check_sparse(cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, m, buf), "Sgtsv2StridedBatch");
}
template <>
void gtsv<double>(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                  double* x, int batch, void* buf) {
  check_sparse(cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, m, buf), "Dgtsv2StridedBatch");
}
template <class T>
std::size_t gtsv_buffer(cusparseHandle_t h, int m, const T* dl, const T* d, const T* du, T* x, int batch) {
  std::size_t bytes = 0;
  if constexpr (sizeof(T) == 4) {
    check_sparse(cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, m, &bytes), "buffer");
  } else {
    check_sparse(cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, m, &bytes), "buffer");
  }
  return bytes;
}

/// The bound kernels' view of a packed n^dims grid along `axis`.
BoundGrid bound_grid(std::int64_t n, int dims, int axis) {
  std::int64_t stride[3] = {1, n, n * n};
  std::int64_t other[2] = {0, 0};
  for (int k = 0, o = 0; k < dims; ++k) {
    if (k != axis) other[o++] = stride[k];
  }
  const std::int64_t count = dims == 2 ? n : n * n;
  // 2-D: one other dimension (e0 = count, s1 unused).
  return dims == 2 ? BoundGrid{n, count, stride[axis], count, other[0], 0}
                   : BoundGrid{n, count, stride[axis], n, other[0], other[1]};
}

/// A cuda_hybrid plan made with TRIAX_CUDA_FACTORED_ROUTE = route (read when a plan is made),
/// the variable restored after.
template <class T>
std::unique_ptr<FactoredSolver<T>> plan_under_route(const char* route, const std::vector<T>& a,
                                                    const std::vector<T>& b, const std::vector<T>& c,
                                                    std::int64_t n, const Layout& l, int axis,
                                                    cudaStream_t stream) {
  const char* old = std::getenv("TRIAX_CUDA_FACTORED_ROUTE");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("TRIAX_CUDA_FACTORED_ROUTE", route, 1);
  auto plan = std::make_unique<FactoredSolver<T>>(Backend::cuda, a.data(), b.data(), c.data(), n, l,
                                                  axis, Options{.stream = stream},
                                                  FactoredAlgorithm::cuda_hybrid);
  if (saved) {
    setenv("TRIAX_CUDA_FACTORED_ROUTE", saved->c_str(), 1);
  } else {
    unsetenv("TRIAX_CUDA_FACTORED_ROUTE");
  }
  return plan;
}

template <class T>
void rows_for(std::int64_t n, int dims, int reps, cudaStream_t stream, cusparseHandle_t sparse,
              std::vector<Row>& rows) {
  const std::size_t total = static_cast<std::size_t>(dims == 2 ? n * n : n * n * n);
  const std::int64_t systems = static_cast<std::int64_t>(total) / n;
  T* d = device_array<T>(total);
  T* x = device_array<T>(total);
  fill<<<1024, 256, 0, stream>>>(d, total, T(1), T(0.125));
  TRIAX_CUDA_CHECK_LAUNCH();
  std::vector<T> a(n, T(0.25)), b(n, T(1)), c(n, T(0.25));
  T* da = device_array<T>(n);
  T* db = device_array<T>(n);
  T* dc = device_array<T>(n);
  TRIAX_CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  TRIAX_CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  TRIAX_CUDA_CHECK(cudaMemcpy(dc, c.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const double copy = median_ms(stream, reps, [&] {
    TRIAX_CUDA_CHECK(cudaMemcpyAsync(x, d, total * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  });
  const std::vector<std::int64_t> extents(dims, n);
  const auto packed = Layout::packed(extents);
  for (int axis = 0; axis < dims; ++axis) {
    Row r{"cuda", sizeof(T) == 4 ? "float" : "double", n, axis};
    r.dims = dims;
    r.copy_ms = copy;
    FactoredSolver<T> f(Backend::cuda, a.data(), b.data(), c.data(), n, packed, axis,
                        {.stream = stream});
    r.stored_rows = f.stored_rows();
    r.factored_ms = median_ms(stream, reps, [&] { f.solve(d, x); });
    r.algorithm = std::string(to_string(f.algorithm()));
    if (f.algorithm() != FactoredAlgorithm::cuda_thread_thomas) {
      FactoredSolver<T> thread(Backend::cuda, a.data(), b.data(), c.data(), n, packed, axis,
                               {.stream = stream}, FactoredAlgorithm::cuda_thread_thomas);
      r.thread_thomas_ms = median_ms(stream, reps, [&] { thread.solve(d, x); });
    }
    {
      auto table = plan_under_route<T>("table", a, b, c, n, packed, axis, stream);
      r.table_ms = median_ms(stream, reps, [&] { table->solve(d, x); });
      auto hybrid = plan_under_route<T>("hybrid", a, b, c, n, packed, axis, stream);
      r.hybrid_route_ms = median_ms(stream, reps, [&] { hybrid->solve(d, x); });
    }
    if (n <= triax::detail::cr_shared_max_n<T>()) {
      FactoredSolver<T> cr(Backend::cuda, a.data(), b.data(), c.data(), n, packed, axis,
                           {.stream = stream}, FactoredAlgorithm::cuda_block_cr_shared);
      r.cr_stored = cr.stored_rows();
      r.cr_shared_ms = median_ms(stream, reps, [&] { cr.solve(d, x); });
    }
    {
      FactoredSolver<T> cr(Backend::cuda, a.data(), b.data(), c.data(), n, packed, axis,
                           {.stream = stream}, FactoredAlgorithm::cuda_block_cr_global);
      r.cr_stored = cr.stored_rows();
      r.cr_global_ms = median_ms(stream, reps, [&] { cr.solve(d, x); });
    }
    // The bounds: the same bytes moved in the solves' orders, no arithmetic.
    const BoundGrid g = bound_grid(n, dims, axis);
    r.sweep_bound_ms = median_ms(stream, reps, [&] {
      sweep_bound<T><<<static_cast<unsigned>((systems + 127) / 128), 128, 0, stream>>>(g, d, x);
      TRIAX_CUDA_CHECK_LAUNCH();
    });
    if (n <= triax::detail::cr_shared_max_n<T>()) {
      triax::detail::Problem p;
      p.n = n;
      p.count = systems;
      p.map[triax::detail::op_d].row_stride = g.row_stride;
      const int shift = triax::detail::cuda_factored_cr::shared_shift<T>(p);
      const std::int64_t lanes = std::int64_t(1) << shift;
      const auto smem = static_cast<std::size_t>(triax::detail::cuda_factored_cr::cr_tile_bytes<T>(n, shift));
      r.tile_bound_ms = median_ms(stream, reps, [&] {
        tile_bound<T><<<static_cast<unsigned>((systems + lanes - 1) / lanes), 256, smem, stream>>>(
            g, d, x, shift);
        TRIAX_CUDA_CHECK_LAUNCH();
      });
    }
    std::vector<std::int64_t> s(dims, 0);
    s[axis] = 1;
    const auto m = Layout::strided(extents, s);
    Solver<T> gen(Backend::cuda, OperandLayouts(m, m, m, packed, packed), axis, {.stream = stream});
    {
      // The general algorithm, not the Solver's own chunk table of the shared matrix.
      const EnvScope general(std::vector<std::pair<std::string, std::string>>{
          {"TRIAX_CUDA_SHARED_MATRIX", "0"}});
      r.general_ms = median_ms(stream, reps, [&] { gen.solve(da, db, dc, d, x); });
    }
    if (axis == 0) {
      // cuSPARSE takes one full matrix per system: the Pade-like Toeplitz matrix replicated.
      T* fa = device_array<T>(total);
      T* fb = device_array<T>(total);
      T* fc = device_array<T>(total);
      fill<<<1024, 256, 0, stream>>>(fa, total, T(0.25), T(0));
      fill<<<1024, 256, 0, stream>>>(fb, total, T(1), T(0));
      fill<<<1024, 256, 0, stream>>>(fc, total, T(0.25), T(0));
      TRIAX_CUDA_CHECK_LAUNCH();
      const std::size_t bytes = gtsv_buffer<T>(sparse, int(n), fa, fb, fc, x, int(systems));
      void* buf = nullptr;
      TRIAX_CUDA_CHECK(cudaMalloc(&buf, std::max<std::size_t>(bytes, 1)));
      // gtsv2 solves in place: each timed run copies d into x first; the copy's time is subtracted.
      const double both = median_ms(stream, reps, [&] {
        TRIAX_CUDA_CHECK(cudaMemcpyAsync(x, d, total * sizeof(T), cudaMemcpyDeviceToDevice, stream));
        gtsv<T>(sparse, int(n), fa, fb, fc, x, int(systems), buf);
      });
      r.cusparse_ms = std::max(both - copy, 1e-3);
      TRIAX_CUDA_CHECK(cudaFree(buf));
      TRIAX_CUDA_CHECK(cudaFree(fa));
      TRIAX_CUDA_CHECK(cudaFree(fb));
      TRIAX_CUDA_CHECK(cudaFree(fc));
    }
    rows.push_back(r);
  }
  for (T* p : {d, x, da, db, dc}) TRIAX_CUDA_CHECK(cudaFree(p));
}

}  // namespace

bool gpu_available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

std::vector<Row> gpu_rows(const Config& cfg) {
  cudaStream_t stream;
  TRIAX_CUDA_CHECK(cudaStreamCreate(&stream));
  cusparseHandle_t sparse;
  check_sparse(cusparseCreate(&sparse), "create");
  check_sparse(cusparseSetStream(sparse, stream), "set stream");
  std::vector<Row> rows;
  for (std::int64_t n : cfg.sizes) {
    rows_for<float>(n, 3, cfg.reps, stream, sparse, rows);
    rows_for<double>(n, 3, cfg.reps, stream, sparse, rows);
  }
  for (std::int64_t n : cfg.sizes_2d) {
    rows_for<float>(n, 2, cfg.reps, stream, sparse, rows);
    rows_for<double>(n, 2, cfg.reps, stream, sparse, rows);
  }
  cusparseDestroy(sparse);
  TRIAX_CUDA_CHECK(cudaStreamDestroy(stream));
  return rows;
}

}  // namespace triax::bench::factored
