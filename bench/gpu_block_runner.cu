// GPU block tridiagonal rows: the inputs generated once on the host and uploaded; then, in the
// same run and on the same buffers, the one-thread-per-system kernel (the baseline) and the
// coop kernel (the automatic choice), each in place, timed with events on one stream after the
// caches are flushed and d restored outside the timing; with --block-bound, each kernel's bound
// (gpu_block_bound.cu) after it, timed alike. With --block-coop-variants the coop kernel runs
// once per variant (TRIAX_CUDA_BLOCK_COOP set while its plan is made; rows
// cuda_block_coop_thomas:<variant>), each against the same bound kernel (the variants move the
// same bytes in the same order), timed again after each so that its spread shows the noise; and
// the conversions are skipped. Then the device layout conversions of the block
// operand A between every ordered pair of the three block layouts (triax::layouts::convert on
// cuda), % of the device copy counting bytes read + written as the copy does.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "block_inputs.hpp"
#include "core/block_validate.hpp"
#include "cuda/block_tridiag/block_launchers.hpp"
#include "gpu_block_bound.hpp"
#include "gpu_context.hpp"
#include "gpu_runner.hpp"
#include "triax/layouts.hpp"

namespace triax::bench {
namespace {

// Each source layout is made on the device from the case's A (untimed); the destination is
// flushed from the caches before each timed conversion.
template <class T>
void run_conversions(const BlockCase& c, const BlockInputs<T>& in, const T* a,
                     const CopyReference& copy, GpuContext& ctx, std::vector<Row>& rows) {
  const std::pair<const char*, Layout> all[] = {
      {"aob", BlockLayouts::array_of_blocks(c.m, c.grid).a},
      {"soa", BlockLayouts::structure_of_arrays(c.m, c.grid).a},
      {"il", BlockLayouts::interleaved(c.m, c.grid, c.axis).a}};
  const std::size_t count = static_cast<std::size_t>(in.points) * c.m * c.m;
  T* from_buffer = static_cast<T*>(ctx.allocate(count * sizeof(T)));
  T* to_buffer = static_cast<T*>(ctx.allocate(count * sizeof(T)));
  void* stream = ctx.stream();
  auto time_one = [&](auto& f) { return ctx.time_one(f); };
  for (const auto& [from_name, from] : all) {
    layouts::convert<T>(Backend::cuda, in.layouts.a, a, from, from_buffer, stream);
    for (const auto& [to_name, to] : all) {
      if (&from == &to) continue;
      Row r = block_row(c, in.systems, sizeof(T), "cuda",
                        std::string("convert_") + from_name + "_to_" + to_name);
      r.bytes = 2.0 * static_cast<double>(count) * sizeof(T);
      auto once = [&] {
        layouts::convert<T>(Backend::cuda, from, from_buffer, to, to_buffer, stream);
      };
      const Timing t = measure(
          c.reps, [&] { ctx.flush(); }, once, time_one);
      r.median_ms = t.median_ms;
      r.min_ms = t.min_ms;
      r.max_ms = t.max_ms;
      finish_row(r, copy);
      rows.push_back(r);
    }
  }
}

template <class T>
void run_typed(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows) {
  const BlockInputs<T> in = make_block_inputs<T>(c);
  const std::size_t block_bytes = static_cast<std::size_t>(in.points) * c.m * c.m * sizeof(T);
  const std::size_t vector_bytes = static_cast<std::size_t>(in.points) * c.m * sizeof(T);
  GpuContext ctx;
  auto upload = [&](const T* host, std::size_t bytes) {
    T* device = static_cast<T*>(ctx.allocate(bytes));
    TRIAX_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
    return device;
  };
  const T* a = upload(in.a.get(), block_bytes);
  const T* b = upload(in.b.get(), block_bytes);
  const T* cc = upload(in.c.get(), block_bytes);
  const T* d = upload(in.d.get(), vector_bytes);
  T* u = static_cast<T*>(ctx.allocate(vector_bytes));
  HostArray<T> solution = host_array<T>(static_cast<std::size_t>(in.points) * c.m);
  auto restore = [&] {
    ctx.copy(u, d, vector_bytes);
    ctx.flush();
  };
  auto time_one = [&](auto& f) { return ctx.time_one(f); };

  // The bound kernels take the in-place problem the solver hands its kernels, and a workspace
  // of the plan's size.
  detail::BlockProblem problem = detail::normalize_block(c.m, in.layouts, c.axis);
  problem.grid.map[detail::op_x] = problem.grid.map[detail::op_d];
  problem.entry_row[detail::op_x] = problem.entry_row[detail::op_d];
  void* bound_work =
      c.bound ? ctx.allocate(detail::cuda::cuda_block_workspace_bytes<T>(problem)) : nullptr;

  // The kernels to time: the thread kernel, then the coop kernel as the plan makes it, or once
  // per variant asked for (nullopt: the environment as it is).
  std::vector<std::pair<BlockAlgorithm, std::optional<std::string>>> kernels = {
      {BlockAlgorithm::cuda_block_thread_thomas, std::nullopt}};
  if (c.coop_variants.empty()) kernels.push_back({BlockAlgorithm::cuda_block_coop_thomas, {}});
  for (const std::string& v : c.coop_variants) {
    kernels.push_back({BlockAlgorithm::cuda_block_coop_thomas, v});
  }
  Row baseline;
  for (const auto& [algorithm, variant] : kernels) {
    Options options;
    options.stream = ctx.stream();
    if (variant) setenv("TRIAX_CUDA_BLOCK_COOP", variant->c_str(), 1);  // read by the plan
    BlockSolver<T> solver(Backend::cuda, c.m, in.layouts, c.axis, options, algorithm);
    if (variant) unsetenv("TRIAX_CUDA_BLOCK_COOP");
    Row r = block_row(c, in.systems, sizeof(T), "cuda",
                      std::string(to_string(algorithm)) + (variant ? ":" + *variant : ""));
    r.automatic = algorithm == BlockAlgorithm::cuda_block_coop_thomas;  // the plan's pick
    auto once = [&] { solver.solve_in_place(a, b, cc, u); };
    const Timing t = measure(c.reps, restore, once, time_one);
    TRIAX_CUDA_CHECK(cudaMemcpy(solution.get(), u, vector_bytes, cudaMemcpyDeviceToHost));
    r.residual = block_residual<T>(in.systems, in.a.get(), in.b.get(), in.c.get(), in.d.get(),
                                   solution.get());
    if (!baseline.algorithm.empty()) {
      r.baseline = baseline.algorithm;
      r.baseline_ms = baseline.median_ms;
    }
    finish_block_row(r, t, in.flops, copy);
    if (c.bound) {
      auto bound = [&] {
        launch_block_bound<T>(algorithm, problem, u, a, b, cc, bound_work, ctx.stream());
      };
      r.bound_ms = measure(c.reps, restore, bound, time_one).median_ms;
      r.bound_gbps = r.bound_ms > 0 ? r.bytes / (r.bound_ms * 1e-3) / 1e9 : 0;
      r.pct_bound = r.median_ms > 0 ? 100.0 * r.bound_ms / r.median_ms : 0;
    }
    rows.push_back(r);
    if (baseline.algorithm.empty()) baseline = r;
  }
  if (c.coop_variants.empty()) run_conversions<T>(c, in, a, copy, ctx, rows);
}

}  // namespace

void run_gpu_block_case(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows) {
  with_block_precision(c, [&](auto zero) { run_typed<decltype(zero)>(c, copy, rows); });
}

}  // namespace triax::bench
