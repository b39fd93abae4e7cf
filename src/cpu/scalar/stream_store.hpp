#pragma once
// Stores that bypass the caches for an output written once and not read again soon: without
// them every line of x is first read from memory (write-allocate), a sixth pass over memory on
// top of the five a perfect solver makes. SSE2 streaming stores where the target has them,
// plain stores elsewhere.

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstdint>

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// out[j] = v[j] for j < w, streaming where the address allows.
template <class T>
inline void stream_row(int w, const T* __restrict v, T* __restrict out) {
  int j = 0;
#if defined(__SSE2__)
  constexpr int V = 16 / sizeof(T);
  while (j < w && (reinterpret_cast<std::uintptr_t>(out + j) & 15) != 0) {
    out[j] = v[j];
    ++j;
  }
  for (; j + V <= w; j += V) {
    if constexpr (sizeof(T) == 8) {
      _mm_stream_pd(reinterpret_cast<double*>(out + j), _mm_loadu_pd(reinterpret_cast<const double*>(v + j)));
    } else {
      _mm_stream_ps(reinterpret_cast<float*>(out + j), _mm_loadu_ps(reinterpret_cast<const float*>(v + j)));
    }
  }
#endif
  for (; j < w; ++j) out[j] = v[j];
}

/// Orders the streaming stores before anything that follows (other threads, the caller).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
