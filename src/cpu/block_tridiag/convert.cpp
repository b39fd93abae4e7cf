// triax::convert: one strided copy for every pair of layouts of one shape (the block layouts'
// conversions and paper 002's Flat / Full-Interleaved / Unified-Vector among them). The
// dimensions are ordered by the destination's strides and merged where both sides allow, so that
// the innermost loop writes memory in order. When the source's fastest dimension is another one
// (array of blocks <-> structure of arrays, Flat <-> Full-Interleaved), the copy goes through a
// tile held in L1: each source row of the tile is read as one run, each destination row written
// as one run, and single elements are transposed in registers inside the tile. The earlier
// kernel moved them one scalar load and store at a time with run-time strides, ~1.2 ns an
// element in cache on the development VM: slower than a core's share of memory bandwidth
// (docs/notes/2026-11-27-cpuconv.md).
//
// Large outputs are written with streaming stores where a thread writes whole runs of the
// destination: a plain store first reads the line it fills (write-allocate), a third pass over
// memory that the copy reference (glibc's memcpy streams too) does not make.
#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert_checks.hpp"
#include "triax/block.hpp"

// Round 3 of the tile shapes (issues 27 and 31, docs/notes/2026-11-27-cpuconv3.md): long source
// runs in L2-sized tiles where a tile's source rows lie pages apart, and streamed runs of 16 and
// 32 bytes. -DTRIAX_CONVERT_ROUND3=0 builds round 2 only; otherwise TRIAX_CONVERT_ROUND=2 in the
// environment (read once) selects round 2 at run time, so that one build measures both.
#ifndef TRIAX_CONVERT_ROUND3
#define TRIAX_CONVERT_ROUND3 1
#endif

namespace triax {
namespace {

bool round3() {
  static const bool on = [] {
    const char* v = std::getenv("TRIAX_CONVERT_ROUND");
    return TRIAX_CONVERT_ROUND3 != 0 && !(v != nullptr && std::strcmp(v, "2") == 0);
  }();
  return on;
}

struct Dim {
  std::int64_t extent, src_stride, dst_stride;
};

// Bytes of one thread's tile: well inside any x86 L1 (32-48 KiB) beside the lines in flight.
constexpr std::int64_t tile_bytes = 16 * 1024;
// Round 3 (copy_tiles): the tile where its source rows lie pages apart (in L2, beside the
// lines in flight: 2 MiB a core on the host), and the source run each row gives it at least.
constexpr std::int64_t l2_tile_bytes = 128 * 1024;
constexpr std::int64_t long_run_bytes = 2048;
constexpr std::int64_t page_bytes = 4096;
constexpr std::int64_t many_rows = 32;  // source rows a round-2 tile reads: twice an L2 set's ways
// Elements of one work item when there is no tile (so that long copies split across threads).
constexpr std::int64_t run_chunk = 1 << 14;
// Bytes of a cache line.
constexpr std::int64_t line_bytes = 64;
// Destination runs shorter than this are not streamed: a line streamed in parts (16-byte runs
// of Flat -> Unified-Vector) costs a read at the memory; 4 lines make the ends' share small.
constexpr std::int64_t stream_run_bytes = 256;
// Outputs at least this large are streamed: smaller ones may still be in cache when read next.
constexpr std::int64_t stream_min_bytes = std::int64_t(8) << 20;

// The copy's dimensions, destination-fastest first, merged.
std::vector<Dim> merged_dims(const Layout& from, const Layout& to) {
  std::vector<Dim> dims;
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) > 1) dims.push_back({from.extent(k), from.stride(k), to.stride(k)});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) {
    return x.dst_stride != y.dst_stride ? x.dst_stride < y.dst_stride : x.src_stride < y.src_stride;
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (!merged.empty()) {
      Dim& last = merged.back();
      if (d.src_stride == last.src_stride * last.extent &&
          d.dst_stride == last.dst_stride * last.extent) {
        last.extent *= d.extent;
        continue;
      }
    }
    merged.push_back(d);
  }
  return merged;
}

// Moves the tile partner (the source's fastest dimension) to position 1 when it is not already
// first; returns whether there is one.
bool place_tile_partner(std::vector<Dim>& dims) {
  if (dims.size() < 2) return false;
  std::size_t q = 1;
  for (std::size_t k = 2; k < dims.size(); ++k) {
    if (dims[k].src_stride < dims[q].src_stride) q = k;
  }
  if (!(dims[q].src_stride < dims[0].src_stride)) return false;
  std::rotate(dims.begin() + 1, dims.begin() + q, dims.begin() + q + 1);
  return true;
}

#if defined(__SSE2__)
// 16 bytes from v to out (16-byte aligned) by a streaming store.
template <class T>
inline void stream16(const T* v, T* out) {
  if constexpr (sizeof(T) == 8) {
    _mm_stream_pd(reinterpret_cast<double*>(out), _mm_loadu_pd(reinterpret_cast<const double*>(v)));
  } else {
    _mm_stream_ps(reinterpret_cast<float*>(out), _mm_loadu_ps(reinterpret_cast<const float*>(v)));
  }
}
#endif

// out[0, count) = v[0, count), both contiguous; streaming stores where `stream` and SSE2 allow.
template <class T>
void store_run(const T* __restrict v, std::int64_t count, T* __restrict out, bool stream) {
  std::int64_t k = 0;
#if defined(__SSE2__)
  if (stream) {
    constexpr std::int64_t lanes = 16 / sizeof(T);
    while (k < count && (reinterpret_cast<std::uintptr_t>(out + k) & 15) != 0) {
      out[k] = v[k];
      ++k;
    }
    for (; k + lanes <= count; k += lanes) stream16(v + k, out + k);
  }
#else
  (void)stream;
#endif
  for (; k < count; ++k) out[k] = v[k];  // short runs: a call to memcpy would cost more
}

// out[0, N) = v[0, N) for a run of compile-time length (16 or 32 bytes: the blocks of array of
// blocks at M = 2): one or two vector moves where a memcpy of a run-time length is a call and a
// loop. `stream` needs out 16-byte aligned (the caller checks).
template <class T, std::int64_t N>
inline void store_fixed(const T* __restrict v, T* __restrict out, bool stream) {
#if defined(__SSE2__)
  constexpr std::int64_t lanes = 16 / sizeof(T);
  if (stream) {
    for (std::int64_t k = 0; k < N; k += lanes) stream16(v + k, out + k);
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(out, v, N * sizeof(T));
}

// d[j * ld + i] = s[i * ls + j] for a square of `lanes` rows and columns (one SSE register
// holds a row): the in-register transpose that moves an element in about one instruction
// where the scalar loop takes 3-4 cycles, slower than memory on a few cores.
template <class T>
constexpr std::int64_t transpose_lanes() {
#if defined(__SSE2__)
  return 16 / sizeof(T);
#else
  return 1;
#endif
}

template <class T>
inline void transpose_square(const T* __restrict s, std::int64_t ls, T* __restrict d,
                             std::int64_t ld) {
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 4) {
    const float* f = reinterpret_cast<const float*>(s);
    float* o = reinterpret_cast<float*>(d);
    __m128 r0 = _mm_loadu_ps(f), r1 = _mm_loadu_ps(f + ls), r2 = _mm_loadu_ps(f + 2 * ls),
           r3 = _mm_loadu_ps(f + 3 * ls);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(o, r0);
    _mm_storeu_ps(o + ld, r1);
    _mm_storeu_ps(o + 2 * ld, r2);
    _mm_storeu_ps(o + 3 * ld, r3);
  } else {
    const double* f = reinterpret_cast<const double*>(s);
    double* o = reinterpret_cast<double*>(d);
    const __m128d r0 = _mm_loadu_pd(f), r1 = _mm_loadu_pd(f + ls);
    _mm_storeu_pd(o, _mm_unpacklo_pd(r0, r1));
    _mm_storeu_pd(o + ld, _mm_unpackhi_pd(r0, r1));
  }
#else
  d[0] = s[0];
  (void)ls;
  (void)ld;
#endif
}

// Orders this thread's streaming stores before whatever follows the parallel region.
void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Source and destination offsets of outer index o over dims[first..).
void outer_offsets(const std::vector<Dim>& dims, std::size_t first, std::int64_t o,
                   std::int64_t& so, std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (std::size_t k = first; k < dims.size(); ++k) {
    const std::int64_t i = o % dims[k].extent;
    o /= dims[k].extent;
    so += i * dims[k].src_stride;
    dof += i * dims[k].dst_stride;
  }
}

// No tile: positions of dims[0] (each a run of `run` elements contiguous on both sides), in
// chunks of about run_chunk elements, outer dimensions after it.
template <class T>
void copy_rows(const std::vector<Dim>& dims, std::int64_t run, const T* src, T* dst,
               bool stream) {
  const Dim d0 = dims[0];
  const std::int64_t chunk = std::max<std::int64_t>(1, run_chunk / run);
  const std::int64_t blocks0 = (d0.extent + chunk - 1) / chunk;
  std::int64_t outer = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) outer *= dims[k].extent;
  // A chunk is one run of the destination when its positions abut there: only then are its
  // lines whole (streamed lines written in part would each cost a read at the memory).
  const bool dst_whole = d0.dst_stride == run;
  const bool src_whole = d0.src_stride == run;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t item = 0; item < outer * blocks0; ++item) {
      std::int64_t so, dof;
      outer_offsets(dims, 1, item / blocks0, so, dof);
      const std::int64_t i0 = item % blocks0 * chunk, i1 = std::min(d0.extent, i0 + chunk);
      const T* s = src + so;
      T* d = dst + dof;
      if (dst_whole && src_whole) {
        store_run(s + i0 * run, (i1 - i0) * run, d + i0 * run, stream);
      } else if (run == 1) {
        for (std::int64_t i = i0; i < i1; ++i) d[i * d0.dst_stride] = s[i * d0.src_stride];
      } else {
        for (std::int64_t i = i0; i < i1; ++i) {
          store_run(s + i * d0.src_stride, run, d + i * d0.dst_stride,
                    stream && dst_whole && run * std::int64_t(sizeof(T)) >= stream_run_bytes);
        }
      }
    }
    if (stream) stream_fence();
  }
}

// A tile of runs contiguous on both sides (array of blocks <-> interleaved), no buffer: source
// run (i, j) at s + i ss0 + j ss1 to d + i ds0 + j ds1, j outer so that a destination row
// (dims[0] abutting there) goes out in order. N > 0: the run length, known at compile time.
template <std::int64_t N, class T>
void direct_tile(const T* s, std::int64_t ss0, std::int64_t ss1, T* d, std::int64_t ds0,
                 std::int64_t ds1, std::int64_t ni, std::int64_t nj, std::int64_t run,
                 bool stream) {
  for (std::int64_t j = 0; j < nj; ++j) {
    const T* sj = s + j * ss1;
    T* dj = d + j * ds1;
    for (std::int64_t i = 0; i < ni; ++i) {
      if constexpr (N > 0) {
        store_fixed<T, N>(sj + i * ss0, dj + i * ds0, stream);
      } else {
        store_run(sj + i * ss0, run, dj + i * ds0, stream);
      }
    }
  }
}

// The unit the tiles move: `count` elements, `src` and `dst` apart on the two sides. A run
// contiguous on both sides (a whole block of the array-of-blocks layouts: 16-512 bytes), or a
// short dimension contiguous on one side only (the 4 operands of a Unified-Vector buffer), which
// alone would give runs of 16 bytes on that side; grouped with the next dimension there it
// makes long ones.
struct Position {
  std::int64_t count = 1, src = 1, dst = 1;
};

// Tiles of n0 positions of dims[0] (the destination's fastest) by n1 of dims[1] (the source's
// fastest): source row i (n1 positions) into the tile, then destination row j (n0 positions)
// out of it.
template <class T>
void copy_tiles(const std::vector<Dim>& dims, Position p, const T* src, T* dst, bool stream) {
  const Dim d0 = dims[0], d1 = dims[1];
  const std::int64_t run = p.count, element = std::int64_t(sizeof(T));
  // A group contiguous on the source side only is held as `run` destination rows per j (so that
  // each goes out as one run); every other position whole, in the destination's order.
  const bool split = p.dst != 1, r3 = round3();
  std::int64_t capacity = std::max<std::int64_t>(1, tile_bytes / (run * element));
  // The source side a few lines long, the destination side the rest of the tile (longer: its
  // runs are the ones streamed).
  constexpr std::int64_t src_run_bytes = 256;
  const std::int64_t src_piece = (p.src == 1 ? run : 1) * element;
  const std::int64_t dst_piece = (split ? 1 : run) * element;
  // Runs contiguous on both sides go without a tile (below): then about a thousand runs in a
  // square, so that each source row is read along in steps of many runs, as it was read before.
  const bool direct = run > 1 && p.src == 1 && !split;
  std::int64_t n1 = 1;
  while (n1 * src_piece < src_run_bytes && n1 * 2 <= capacity) n1 *= 2;
  if (direct) n1 = 32;
  n1 = std::min(n1, d1.extent);
  std::int64_t n0 = std::max<std::int64_t>(1, std::min(d0.extent, capacity / n1));
  if (direct) n0 = std::min(d0.extent, std::max<std::int64_t>(32, 1024 / n1));
  // Round 3, a tile whose source rows lie pages apart (structure of arrays -> array of blocks:
  // M^2 grids 1 MiB apart at 64^3; Flat x4 -> Unified-Vector: 4 arrays): 256-byte pieces of 64
  // such rows, every tile, left the hardware prefetchers behind (64 streams at one page offset
  // share a cache set) at 71-75% of the copy; Unified-Vector -> Flat x4 read 256 bytes of rows
  // 400 KB apart (66-84%). The tile grows to L2 size so that each source row gives a long run
  // (its whole length where that is at most a page), and the rows are read a line's worth of
  // them at a time (`group` below): few streams live at once, each read far.
  // Only where a tile reads many such rows: 4-25 of them (M = 2 and 5) kept up in round 2 and
  // went slower in L2 tiles on the VM (M = 2: 1.25-1.5x the time).
  const std::int64_t src_rows = n0 * (run > 1 && !split ? run : 1);
  const bool far = r3 && !direct && (!split || d1.src_stride == run) && src_rows >= many_rows &&
                   std::max(d0.src_stride, run > 1 ? p.src : 0) * element >= page_bytes;
  if (far) {
    capacity = std::max<std::int64_t>(1, l2_tile_bytes / (run * element));
    n1 = d1.extent * src_piece <= page_bytes ? d1.extent : 1;
    while (n1 * src_piece < long_run_bytes && n1 * 2 <= capacity) n1 *= 2;
    n1 = std::min({n1, d1.extent, capacity});
    n0 = std::max<std::int64_t>(1, std::min(d0.extent, capacity / n1));
    n1 = std::min(d1.extent, std::max(n1, capacity / n0));  // few rows: longer runs still
  }
  const std::int64_t group = far ? std::max<std::int64_t>(1, line_bytes / element) : n0;
  // Tiles that begin on a line of a line-aligned destination row write whole lines: a line
  // shared by two tiles' streamed runs (or streamed by one and stored by the next) costs a read
  // at the memory, 4x slower for array of blocks -> structure of arrays at M = 5 (n0 = 163).
  const std::int64_t line_positions = line_bytes / std::gcd(dst_piece, line_bytes);
  if (n0 < d0.extent && n0 >= line_positions) n0 = n0 / line_positions * line_positions;
  std::int64_t outer = 1;
  for (std::size_t k = 2; k < dims.size(); ++k) outer *= dims[k].extent;
  // Enough tiles for every thread: a 64 x 64 transpose of long runs (array of blocks ->
  // interleaved along axis 1 of a 64^3 grid: runs of 64 blocks) made 4 tiles of 32 x 32, so 4 of
  // the 16 host cores worked (52-57% of the copy at every M). The source side gives way first,
  // down to one line per source row.
  const std::int64_t want = 4 * std::int64_t(omp_get_max_threads());
  const std::int64_t least_n1 = std::max<std::int64_t>(1, line_bytes / src_piece);
  auto tiles = [&] { return outer * ((d0.extent + n0 - 1) / n0) * ((d1.extent + n1 - 1) / n1); };
  while (tiles() < want && n1 / 2 >= least_n1) n1 /= 2;
  const std::int64_t blocks0 = (d0.extent + n0 - 1) / n0, blocks1 = (d1.extent + n1 - 1) / n1;
  const std::int64_t items = outer * blocks1 * blocks0;
  const bool dst_rows = d0.dst_stride == (split ? 1 : run);
  // The tile's destination rows abut when it holds the whole of dims[0] and dims[1] continues
  // it there (structure of arrays -> array of blocks: a row is one block, M^2 elements): the
  // tile is then one destination run, written and streamed as one. Row by row those runs were
  // 16-200 bytes, too short to stream (double M = 5: 200 bytes, every line read before written)
  // and one call each.
  const bool dst_whole = dst_rows && !split && n0 == d0.extent && d1.dst_stride == d0.extent * run;
  const bool stream_rows =
      stream && dst_rows && (dst_whole ? n0 * n1 : n0) * dst_piece >= stream_run_bytes;
  // Runs streamed one by one must each fill whole lines, or they would share lines with plain
  // stores or with runs that other tiles write.
  const bool stream_runs = stream_rows && dst_piece % line_bytes == 0;
  // Round 3 streams the direct runs whenever a tile's destination row is long enough: written in
  // order (direct_tile), its runs fill whole lines whatever their length.
  const bool stream_direct = r3 ? stream_rows && dst_piece % 16 == 0 : stream_runs;
  constexpr std::int64_t strip = line_bytes / std::int64_t(sizeof(T));
#pragma omp parallel
  {
    std::vector<T> tile(direct ? 0 : static_cast<std::size_t>(n0 * n1 * run));
    T* const t = tile.data();
#pragma omp for schedule(static)
    for (std::int64_t item = 0; item < items; ++item) {
      std::int64_t so, dof;
      outer_offsets(dims, 2, item / blocks0 / blocks1, so, dof);
      const std::int64_t i0 = item % blocks0 * n0, j0 = item / blocks0 % blocks1 * n1;
      const std::int64_t ni = std::min(n0, d0.extent - i0), nj = std::min(n1, d1.extent - j0);
      const T* s = src + so + i0 * d0.src_stride + j0 * d1.src_stride;
      T* d = dst + dof + i0 * d0.dst_stride + j0 * d1.dst_stride;
      // In: the tile holds element e of position (i, j) at (j * ni + i) * run + e (the
      // destination's order) or, split, at (j * run + e) * ni + i.
      // Single elements go over in strips of `strip` source columns: the strip's tile rows
      // fill whole lines as i advances, and each source line is used up within a strip.
      // A split group whose positions abut in the source is the same transpose with run
      // columns per position (Unified-Vector -> Flat: the 4 operands of a row side by side).
      if (run == 1 || (split && d1.src_stride == run)) {
        constexpr std::int64_t q = transpose_lanes<T>();
        const std::int64_t nc = nj * run, cs = run == 1 ? d1.src_stride : 1;
        const bool squares = cs == 1;
        for (std::int64_t ig = 0; ig < ni; ig += group) {
          const std::int64_t ie = std::min(ni, ig + group);
          for (std::int64_t jb = 0; jb < nc; jb += strip) {
            const std::int64_t nb = std::min(strip, nc - jb);
            std::int64_t i = ig;
            if (squares) {
              for (; i + q <= ie; i += q) {
                const T* rows = s + i * d0.src_stride + jb;
                std::int64_t jj = 0;
                for (; jj + q <= nb; jj += q) {
                  transpose_square(rows + jj, d0.src_stride, t + (jb + jj) * ni + i, ni);
                }
                for (; jj < nb; ++jj) {
                  for (std::int64_t ii = 0; ii < q; ++ii) {
                    t[(jb + jj) * ni + i + ii] = rows[ii * d0.src_stride + jj];
                  }
                }
              }
            }
            for (; i < ie; ++i) {
              const T* row = s + i * d0.src_stride + jb * cs;
              T* col = t + jb * ni + i;
              for (std::int64_t jj = 0; jj < nb; ++jj) col[jj * ni] = row[jj * cs];
            }
          }
        }
      } else if (split) {
        for (std::int64_t i = 0; i < ni; ++i) {
          const T* row = s + i * d0.src_stride;
          for (std::int64_t j = 0; j < nj; ++j) {
            for (std::int64_t e = 0; e < run; ++e) t[(j * run + e) * ni + i] = row[j * d1.src_stride + e];
          }
        }
      } else if (direct && r3) {
        // Round 3: destination row j (the runs of dims[0], abutting there) is written in order,
        // so that streamed 16- and 32-byte runs fill whole lines one after another: round 2
        // stored them plainly, each line read from memory first (float M = 2: 51-73% of the copy).
        // Streamed only where every run starts on 16 bytes (no plain store shares a line).
        const bool aligned =
            ((reinterpret_cast<std::uintptr_t>(d) | std::uintptr_t(d1.dst_stride * element)) &
             15) == 0;
        const bool st = stream_direct && aligned;
        const std::int64_t bytes = run * element;
        const auto go = [&](auto n) {
          direct_tile<decltype(n)::value>(s, d0.src_stride, d1.src_stride, d, d0.dst_stride,
                                          d1.dst_stride, ni, nj, run, st);
        };
        if (bytes == 16) {
          go(std::integral_constant<std::int64_t, 16 / std::int64_t(sizeof(T))>{});
        } else if (bytes == 32) {
          go(std::integral_constant<std::int64_t, 32 / std::int64_t(sizeof(T))>{});
        } else {
          go(std::integral_constant<std::int64_t, 0>{});
        }
        continue;
      } else if (direct) {
        // Runs contiguous on both sides need no tile: straight from the source rows to the
        // destination rows, which advance run after run (whole lines when streamed).
        for (std::int64_t j = 0; j < nj && stream_runs; ++j) {
          for (std::int64_t i = 0; i < ni; ++i) {
            store_run(s + i * d0.src_stride + j * d1.src_stride, run,
                      d + i * d0.dst_stride + j * d1.dst_stride, true);
          }
        }
        for (std::int64_t j = 0; j < nj && !stream_runs; ++j) {
          const T* sj = s + j * d1.src_stride;
          T* dj = d + j * d1.dst_stride;
          for (std::int64_t i = 0; i < ni; ++i) {
            const T* sr = sj + i * d0.src_stride;
            T* dr = dj + i * d0.dst_stride;
            for (std::int64_t e = 0; e < run; ++e) dr[e] = sr[e];
          }
        }
        continue;
      } else {
        // A group contiguous on the destination side: each of its source rows read as a run,
        // q of them at a time through a register square where the rows are contiguous.
        constexpr std::int64_t q = transpose_lanes<T>();
        const bool squares = d1.src_stride == 1 && run % q == 0;
        for (std::int64_t i = 0; i < ni && squares; ++i) {
          std::int64_t j = 0;
          for (; j + q <= nj; j += q) {
            for (std::int64_t e = 0; e < run; e += q) {
              transpose_square(s + i * d0.src_stride + e * p.src + j, p.src,
                               t + (j * ni + i) * run + e, ni * run);
            }
          }
          for (; j < nj; ++j) {
            for (std::int64_t e = 0; e < run; ++e) {
              t[(j * ni + i) * run + e] = s[i * d0.src_stride + e * p.src + j];
            }
          }
        }
        for (std::int64_t i = 0; i < ni && !squares; ++i) {
          for (std::int64_t e = 0; e < run; ++e) {
            const T* row = s + i * d0.src_stride + e * p.src;
            T* out = t + i * run + e;
            for (std::int64_t j = 0; j < nj; ++j) out[j * ni * run] = row[j * d1.src_stride];
          }
        }
      }
      // Out: destination row j (split: row (j, e)) is contiguous where its positions abut.
      if (dst_whole) {
        store_run(t, nj * ni * run, d, stream_rows);
        continue;
      }
      const std::int64_t rows = split ? nj * run : nj, per_row = split ? ni : ni * run;
      for (std::int64_t r = 0; r < rows; ++r) {
        const T* v = t + r * per_row;
        T* row = split ? d + r / run * d1.dst_stride + r % run * p.dst : d + r * d1.dst_stride;
        if (dst_rows) {
          store_run(v, per_row, row, stream_rows);
        } else if (split) {
          for (std::int64_t i = 0; i < ni; ++i) row[i * d0.dst_stride] = v[i];
        } else {
          for (std::int64_t i = 0; i < ni; ++i) {
            for (std::int64_t e = 0; e < run; ++e) row[i * d0.dst_stride + e] = v[i * run + e];
          }
        }
      }
    }
    if (stream) stream_fence();
  }
}

// A short dimension contiguous on one side only, taken out of `dims` as the tiles' position
// when the next dimension on that side continues it (else it would not make longer runs).
Position one_sided_group(std::vector<Dim>& dims) {
  constexpr std::int64_t most = 16;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const Dim g = dims[k];
    if (g.extent > most || (g.src_stride == 1) == (g.dst_stride == 1)) continue;
    const bool on_dst = g.dst_stride == 1;
    bool continued = false;
    for (const Dim& other : dims) {
      continued = continued || (on_dst ? other.dst_stride : other.src_stride) == g.extent;
    }
    if (!continued || dims.size() < 3) continue;
    dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(k));
    return {g.extent, g.src_stride, g.dst_stride};
  }
  return {};
}

}  // namespace

template <class T>
void convert(const Layout& from, const T* src, const Layout& to, T* dst) {
  detail::check_conversion("triax::convert: ", from, src, to, dst, sizeof(T));
  if (from.size() == 0) return;
  std::vector<Dim> dims = merged_dims(from, to);
  src += from.offset();
  dst += to.offset();
  if (dims.empty()) {
    *dst = *src;
    return;
  }
  // A run contiguous on both sides (a whole block of the array-of-blocks layouts) is the unit
  // the loops move; the tiles are then made of runs (array of blocks -> interleaved: blocks of
  // 16-512 bytes reordered).
  std::int64_t run = 1;
  if (dims.size() > 1 && dims[0].src_stride == 1 && dims[0].dst_stride == 1) {
    run = dims[0].extent;
    dims.erase(dims.begin());
  }
  const bool stream = from.size() * std::int64_t(sizeof(T)) >= stream_min_bytes;
  Position p{run, 1, 1};
  if (run == 1) {
    std::vector<Dim> rest = dims;
    const Position g = one_sided_group(rest);
    if (g.count > 1 && place_tile_partner(rest)) {
      copy_tiles(rest, g, src, dst, stream);
      return;
    }
  }
  if (place_tile_partner(dims)) {
    copy_tiles(dims, p, src, dst, stream);
  } else {
    copy_rows(dims, run, src, dst, stream);
  }
}

template TRIAX_API void convert<float>(const Layout&, const float*, const Layout&, float*);
template TRIAX_API void convert<double>(const Layout&, const double*, const Layout&, double*);

}  // namespace triax
