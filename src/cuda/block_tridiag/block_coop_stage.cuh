#pragma once
// The shared-memory stage of the coop kernel's `shared` variants (block_coop_thomas.cuh): each
// group of lanes passes C*[i-1] | d*[i-1] to the product B[i] - A[i] C*[i-1] through it instead of
// M (M + 1) shuffles (twice that in double: a shuffle moves 32 bits). Lane q stores its row
// [C*[i-1](q, 0..M-1) | d*[i-1](q)] at q (M + 1); every lane of the group then reads all
// M (M + 1) values as 16-byte loads of one address per group (a broadcast): M (M + 1) / 4 loads
// in float, / 2 in double, and M + 1 stores a lane. The caller brackets them with __syncwarp():
// the stores after the group's last read of the previous row, the reads after the stores.
//
// A group's stage starts on 16 bytes and spans an odd number of 16-byte units, so that the
// groups of a warp (8 at most that read at once with M >= 3) start on distinct 16-byte bank
// quads and their broadcasts do not conflict.
#include <cuda_runtime.h>

namespace triax::detail::cuda::block_coop {

template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

/// Lanes of a system's group: M rounded up to a power of two, so that groups tile a warp.
template <int M>
inline constexpr int group_lanes = M <= 1   ? 1
                                   : M <= 2 ? 2
                                   : M <= 4 ? 4
                                            : 8;

template <class T, int M>
struct GroupStage {
  using Vec = typename Vec16<T>::type;
  static constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  static constexpr int used = M * (M + 1);                       // values a group stages
  static constexpr int used_vecs = (used + per_vec - 1) / per_vec;  // loads that read them
  static constexpr int group_vecs = used_vecs % 2 == 1 ? used_vecs : used_vecs + 1;
  /// The stage of a thread block of `threads` threads in groups of group_lanes<M>.
  __host__ __device__ static constexpr int block_vecs(int threads) {
    return threads / group_lanes<M> * group_vecs;
  }

  __device__ static T* of_group(Vec* all, int group_in_block) {
    return reinterpret_cast<T*>(all + group_in_block * group_vecs);
  }

  /// Lane `lane`'s row of C*[i-1] and its component of d*[i-1] into the stage.
  __device__ static void put_row(T* stage, int lane, const T (&crow)[M], T drow) {
    T* row = stage + lane * (M + 1);
#pragma unroll
    for (int c = 0; c < M; ++c) row[c] = crow[c];
    row[M] = drow;
  }

  /// prow -= arow C*[i-1] and drow -= arow d*[i-1], C*[i-1] | d*[i-1] from the stage: the same
  /// products, subtracted in the same order (q = 0..M-1 for each entry), as the shuffle variant.
  __device__ static void subtract_product(const T* stage, const T (&arow)[M], T (&prow)[M],
                                          T& drow) {
    const Vec* vecs = reinterpret_cast<const Vec*>(stage);
#pragma unroll
    for (int k = 0; k < used_vecs; ++k) {
      const Vec v = vecs[k];
      T parts[per_vec];
      to_parts(v, parts);
#pragma unroll
      for (int j = 0; j < per_vec; ++j) {
        const int flat = k * per_vec + j;
        if (flat >= used) break;
        const int q = flat / (M + 1), c = flat % (M + 1);
        if (c < M) {
          prow[c] -= arow[q] * parts[j];
        } else {
          drow -= arow[q] * parts[j];
        }
      }
    }
  }

 private:
  __device__ static void to_parts(const float4& v, float (&parts)[4]) {
    parts[0] = v.x;
    parts[1] = v.y;
    parts[2] = v.z;
    parts[3] = v.w;
  }
  __device__ static void to_parts(const double2& v, double (&parts)[2]) {
    parts[0] = v.x;
    parts[1] = v.y;
  }
};

}  // namespace triax::detail::cuda::block_coop
