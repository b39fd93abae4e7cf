#pragma once
// The memory bound of the GPU ranks' local passes (triax-bench-mpi --bound): arithmetic-free
// kernels that move the bytes of each pass in the pass's own order, on the rank's own block, so
// that the local-pass time can be read as a fraction of what moving its data alone costs on the
// same machine in the same run (docs/notes/2026-11-27-distgpu.md).
#include <cstdint>
#include <vector>

namespace triax::bench::mpi {

/// Milliseconds per launch (the median of the repetitions) of four kernels over one block.
struct PassBounds {
  /// As src/dist/gpu/gpu_path.cu's passes: pass 1 reads a, b, c, d and writes the three
  /// workspace arrays (rows 1 .. n-1) and the reduced rows; pass 2 reads the workspace from the
  /// last row down and writes x.
  double pass1_ms = 0, pass2_ms = 0;
  /// The least any two-pass method moves: pass 1 reads a, b, c, d once (writing one value per
  /// system), pass 2 reads them again and writes x.
  double min1_ms = 0, min2_ms = 0;
  double bound_ms() const { return pass1_ms + pass2_ms; }
  double min_ms() const { return min1_ms + min2_ms; }
};

/// Times the four kernels on the stream over a packed block of `extents` (x fastest) solved
/// along `axis`, with device arrays a, b, c, d (read) and x (written). Allocates its own
/// workspace. Only with CUDA (the runner calls it for --backend cuda).
template <class T>
PassBounds time_pass_bounds(const T* a, const T* b, const T* c, const T* d, T* x,
                            const std::vector<std::int64_t>& extents, int axis, int reps,
                            void* stream);

}  // namespace triax::bench::mpi
