// triax-bench-convert-cpu: triax::layouts::convert on the cpu backend (issues 27 and 31), every
// row against the host copy measured in the same run (std::memcpy split over the OpenMP
// threads, 2 x bytes / time, as triax-bench counts it). Rows:
//   scalar  paper 002's layouts (Flat, Full-Interleaved, Unified-Vector) as triax-bench-layouts
//           times them on the GPU: n = 512 rows, 25600 systems, 2 x elements moved; the bar
//           (85% of the copy) applies to whole arrays, not to one Unified-Vector component;
//   block   the block operand A of a 64^3 grid (M from --block-m): array of blocks <->
//           structure of arrays, and array of blocks -> interleaved along each axis.
// Caches are flushed before each timed call (median of --reps). --json writes every row.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "../host_memory.hpp"
#include "../stats.hpp"
#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace {

using namespace triax;
using bench::host_array;

int reps = 10;
bool quick = false;
std::string families = "all";  // --family: scalar, block or all rows
double copy_gbps = 0;
std::string json_rows, json_path;
int passed = 0, failed = 0;

// Rewritten after every row, so that a run cut short by its caller's timeout keeps its rows.
void write_json() {
  if (!json_path.empty()) std::ofstream(json_path) << "[\n" << json_rows << "\n]\n";
}

const char* prec(std::size_t bytes) { return bytes == 4 ? "float" : "double"; }

double median_ms(const std::function<void()>& f) {
  return bench::measure(
             reps, [] { bench::flush_host_caches(); }, f,
             [](auto& g) { return bench::host_ms(g); })
      .median_ms;
}

void measure_copy() {
  const std::size_t bytes = std::size_t(quick ? 256 : 1024) << 20;
  auto src = host_array<char>(bytes), dst = host_array<char>(bytes);
  bench::parallel_copy(dst.get(), src.get(), bytes);  // first touch of both
  bench::parallel_copy(src.get(), dst.get(), bytes);
  const double ms = median_ms([&] { bench::parallel_copy(dst.get(), src.get(), bytes); });
  copy_gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  std::printf("host copy (memcpy over %d OpenMP threads, %zu MiB): %.1f GB/s\n",
              omp_get_max_threads(), bytes >> 20, copy_gbps);
}

template <class T>
void row(const std::string& family, const std::string& name, const std::string& shape,
         const Layout& from, const T* src, const Layout& to, T* dst, bool has_bar) {
  const double ms = median_ms([&] { layouts::convert<T>(Backend::cpu, from, src, to, dst); });
  const double g = 2.0 * double(from.size()) * sizeof(T) / (ms * 1e-3) / 1e9;
  const bool pass = g >= 0.85 * copy_gbps;
  if (has_bar) (pass ? passed : failed) += 1;
  std::printf("%-6s %-28s %-6s %-14s %9.3f ms %7.1f GB/s %6.1f%% of copy%s\n", family.c_str(),
              name.c_str(), prec(sizeof(T)), shape.c_str(), ms, g, 100 * g / copy_gbps,
              !has_bar ? " (one of 4 interleaved components: no bar)" : pass ? " PASS" : " FAIL");
  json_rows += (json_rows.empty() ? "  " : ",\n  ") + std::string("{\"kind\": \"convert\", ") +
               "\"family\": \"" + family + "\", \"case\": \"" + name + "\", \"precision\": \"" +
               prec(sizeof(T)) + "\", \"shape\": \"" + shape + "\", \"ms\": " +
               std::to_string(ms) + ", \"gbps\": " + std::to_string(g) +
               ", \"copy_gbps\": " + std::to_string(copy_gbps) + ", \"copy_fraction\": " +
               std::to_string(g / copy_gbps) + ", \"bar\": " + (has_bar ? "true" : "false") + "}";
  write_json();
}

template <class T>
void fill(T* p, std::size_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(n); ++i) p[i] = T(i % 1000) * T(0.5);
}

template <class T>
void scalar_rows() {
  const std::int64_t n = 512, count = quick ? 2560 : 25600;
  const std::size_t rows = std::size_t(n * count);
  auto src = host_array<T>(4 * rows), dst = host_array<T>(4 * rows);
  fill(src.get(), 4 * rows);
  fill(dst.get(), 4 * rows);
  const auto u = layouts::unified_vector(n, count);
  const Layout flat4 = Layout::strided({4, n, count}, {n * count, 1, n});
  const Layout unified4 = Layout::strided({4, n, count}, {1, 4 * count, 4});
  const std::tuple<const char*, Layout, Layout, bool> cases[] = {
      {"flat->interleaved", layouts::flat(n, count), layouts::interleaved(n, count), true},
      {"interleaved->flat", layouts::interleaved(n, count), layouts::flat(n, count), true},
      {"flat->unified.b", layouts::flat(n, count), u.b, false},
      {"unified.d->flat", u.d, layouts::flat(n, count), false},
      {"flat4->unified", flat4, unified4, true},
      {"unified->flat4", unified4, flat4, true}};
  const std::string shape = std::to_string(n) + "x" + std::to_string(count);
  for (const auto& [name, from, to, bar] : cases) {
    row<T>("scalar", name, shape, from, src.get(), to, dst.get(), bar);
  }
}

template <class T>
void block_rows(int m) {
  const std::vector<std::int64_t> grid = {64, 64, 64};
  const auto aob = BlockLayouts::array_of_blocks(m, grid);
  const auto soa = BlockLayouts::structure_of_arrays(m, grid);
  const std::size_t size = std::size_t(aob.a.size());
  auto src = host_array<T>(size), dst = host_array<T>(size);
  fill(src.get(), size);
  fill(dst.get(), size);
  const std::string shape = "M" + std::to_string(m) + " 64^3";
  row<T>("block", "aob->soa", shape, aob.a, src.get(), soa.a, dst.get(), true);
  row<T>("block", "soa->aob", shape, soa.a, src.get(), aob.a, dst.get(), true);
  for (int axis = 0; axis < 3; ++axis) {
    const auto il = BlockLayouts::interleaved(m, grid, axis);
    row<T>("block", "aob->interleaved" + std::to_string(axis), shape, aob.a, src.get(), il.a,
           dst.get(), true);
  }
  const auto il0 = BlockLayouts::interleaved(m, grid, 0);
  row<T>("block", "interleaved0->aob", shape, il0.a, src.get(), aob.a, dst.get(), true);
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = text.find(',', pos);
    out.push_back(std::atoi(text.substr(pos, comma - pos).c_str()));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ms = {2, 4, 5, 8};
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--json" && k + 1 < argc) {
      json_path = argv[++k];
    } else if (a == "--reps" && k + 1 < argc) {
      reps = std::max(3, std::atoi(argv[++k]));
    } else if (a == "--block-m" && k + 1 < argc) {
      ms = parse_list(argv[++k]);
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--family" && k + 1 < argc) {
      families = argv[++k];
    } else {
      std::fprintf(stderr,
                   "usage: triax-bench-convert-cpu [--json PATH] [--reps N] [--block-m 2,4,5,8] "
                   "[--quick] [--family scalar|block|all]\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  measure_copy();
  if (families != "block") {
    scalar_rows<float>();
    scalar_rows<double>();
  }
  for (const int m : families == "scalar" ? std::vector<int>{} : ms) {
    if (m < 1 || m > 8) {
      std::fprintf(stderr, "--block-m: %d is not in 1..8\n", m);
      return 2;
    }
    block_rows<float>(m);
    block_rows<double>(m);
  }
  std::printf("convert rows with a bar (85%% of the copy): %d PASS, %d FAIL\n", passed, failed);
  write_json();
  return 0;
}
