#include "cusparse_check.hpp"
#include "gpu_baseline.hpp"

namespace triax::bench {
namespace {

// The float and double entry points under one name each.
cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const float* dl, const float* d,
                                const float* du, const float* x, int count, int stride,
                                size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const double* dl, const double* d,
                                const double* du, const double* x, int count, int stride,
                                size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const float* dl, const float* d,
                               const float* du, float* x, int count, int stride, void* buffer) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, buffer);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const double* dl, const double* d,
                               const double* du, double* x, int count, int stride, void* buffer) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, buffer);
}
cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, const float* dl, const float* d,
                                    const float* du, const float* x, int count, size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, const double* dl, const double* d,
                                    const double* du, const double* x, int count, size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, float* dl, float* d, float* du,
                                   float* x, int count, void* buffer) {
  return cusparseSgtsvInterleavedBatch(h, 0, m, dl, d, du, x, count, buffer);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, double* dl, double* d, double* du,
                                   double* x, int count, void* buffer) {
  return cusparseDgtsvInterleavedBatch(h, 0, m, dl, d, du, x, count, buffer);
}

cusparseStatus_t nopivot_buffer(cusparseHandle_t h, int m, const float* dl, const float* d,
                                const float* du, const float* x, size_t* bytes) {
  return cusparseSgtsv2_nopivot_bufferSizeExt(h, m, 1, dl, d, du, x, m, bytes);
}
cusparseStatus_t nopivot_buffer(cusparseHandle_t h, int m, const double* dl, const double* d,
                                const double* du, const double* x, size_t* bytes) {
  return cusparseDgtsv2_nopivot_bufferSizeExt(h, m, 1, dl, d, du, x, m, bytes);
}
cusparseStatus_t nopivot_solve(cusparseHandle_t h, int m, const float* dl, const float* d,
                               const float* du, float* x, void* buffer) {
  return cusparseSgtsv2_nopivot(h, m, 1, dl, d, du, x, m, buffer);
}
cusparseStatus_t nopivot_solve(cusparseHandle_t h, int m, const double* dl, const double* d,
                               const double* du, double* x, void* buffer) {
  return cusparseDgtsv2_nopivot(h, m, 1, dl, d, du, x, m, buffer);
}

int as_int(std::int64_t v, const char* what) {
  if (v > 0x7fffffff) throw invalid_argument(std::string("cuSPARSE takes int: ") + what);
  return static_cast<int>(v);
}

/// A batch as cuSPARSE takes it: int sizes, the bytes of one array, the handle.
struct Batch {
  int m, count;
  std::size_t bytes;
  cusparseHandle_t handle;
  template <class T>
  static Batch of(GpuContext& ctx, const AxisGeometry& g) {
    return {as_int(g.n, "n"), as_int(g.systems, "systems"),
            sizeof(T) * std::size_t(g.n) * std::size_t(g.systems), ctx.cusparse()};
  }
};

/// Median of `reps` event-timed calls of `solve`; `restore` and the L2 flush run before each.
template <class Restore, class Solve>
Timing time_calls(GpuContext& ctx, int reps, Restore&& restore, Solve&& solve) {
  auto prepare = [&] {
    restore();
    ctx.flush();
  };
  return measure(reps, prepare, solve, [&](auto& f) { return ctx.time_one(f); });
}

}  // namespace

template <class T>
Timing cusparse_gtsv2_strided_batch(GpuContext& ctx, const AxisGeometry& g, const T* a, const T* b,
                                    const T* c, const T* d, T* x, int reps) {
  const Batch s = Batch::of<T>(ctx, g);
  size_t buffer_bytes = 0;
  TRIAX_CUSPARSE_CHECK(strided_buffer(s.handle, s.m, a, b, c, x, s.count, s.m, &buffer_bytes));
  void* buffer = ctx.allocate(buffer_bytes > 0 ? buffer_bytes : 1);
  return time_calls(
      ctx, reps, [&] { ctx.copy(x, d, s.bytes); },
      [&] {
        TRIAX_CUSPARSE_CHECK(strided_solve(s.handle, s.m, a, b, c, x, s.count, s.m, buffer));
      });
}

template <class T>
Timing cusparse_gtsv_interleaved_batch(GpuContext& ctx, const AxisGeometry& g, const T* a,
                                       const T* b, const T* c, const T* d, T* x, int reps) {
  const Batch s = Batch::of<T>(ctx, g);
  T* wa = static_cast<T*>(ctx.allocate(s.bytes));
  T* wb = static_cast<T*>(ctx.allocate(s.bytes));
  T* wc = static_cast<T*>(ctx.allocate(s.bytes));
  size_t buffer_bytes = 0;
  TRIAX_CUSPARSE_CHECK(interleaved_buffer(s.handle, s.m, a, b, c, x, s.count, &buffer_bytes));
  void* buffer = ctx.allocate(buffer_bytes > 0 ? buffer_bytes : 1);
  auto restore = [&] {
    for (auto [dst, src] :
         {std::pair{wa, a}, std::pair{wb, b}, std::pair{wc, c}, std::pair{x, d}}) {
      ctx.copy(dst, src, s.bytes);
    }
  };
  return time_calls(ctx, reps, restore, [&] {
    TRIAX_CUSPARSE_CHECK(interleaved_solve(s.handle, s.m, wa, wb, wc, x, s.count, buffer));
  });
}

template <class T>
Timing cusparse_gtsv2_nopivot(GpuContext& ctx, const AxisGeometry& g, const T* a, const T* b,
                              const T* c, const T* d, T* x, int reps) {
  const Batch s = Batch::of<T>(ctx, g);
  size_t buffer_bytes = 0;
  TRIAX_CUSPARSE_CHECK(nopivot_buffer(s.handle, s.m, a, b, c, x, &buffer_bytes));
  void* buffer = ctx.allocate(buffer_bytes > 0 ? buffer_bytes : 1);
  const std::size_t n = static_cast<std::size_t>(s.m);
  return time_calls(
      ctx, reps, [&] { ctx.copy(x, d, s.bytes); },
      [&] {
        // One call per system: each has its own matrix (the routine's n right-hand sides share
        // one), and the systems lie back to back (axis 0 of a packed array).
        for (int k = 0; k < s.count; ++k) {
          TRIAX_CUSPARSE_CHECK(
              nopivot_solve(s.handle, s.m, a + k * n, b + k * n, c + k * n, x + k * n, buffer));
        }
      });
}

#define TRIAX_BENCH_INSTANTIATE(T)                                                               \
  template Timing cusparse_gtsv2_strided_batch<T>(GpuContext&, const AxisGeometry&, const T*,    \
                                                  const T*, const T*, const T*, T*, int);        \
  template Timing cusparse_gtsv_interleaved_batch<T>(GpuContext&, const AxisGeometry&, const T*, \
                                                     const T*, const T*, const T*, T*, int);   \
  template Timing cusparse_gtsv2_nopivot<T>(GpuContext&, const AxisGeometry&, const T*, const T*, \
                                            const T*, const T*, T*, int);
TRIAX_BENCH_INSTANTIATE(float)
TRIAX_BENCH_INSTANTIATE(double)
#undef TRIAX_BENCH_INSTANTIATE

}  // namespace triax::bench
