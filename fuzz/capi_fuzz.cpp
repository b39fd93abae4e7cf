// libFuzzer target over the C API (include/triax/triax.h). Each input is decoded into a plan
// (backend, layout, axis, options; fuzz_case.hpp) and, when the layout spans at most 1 MiB of
// values, a solve on buffers that span it exactly. What is checked:
//   - arguments the harness knows to be bad are rejected, with a message, and a rejected call
//     writes nothing (every buffer, info and the plan pointer compared before and after);
//   - a proper call on a well-formed layout succeeds, or is rejected for a reason the harness
//     can see (an output that overlaps itself), again writing nothing;
//   - a successful solve leaves a, b, c (and d, unless in place) and every element outside the
//     layout unchanged, never reads a[0] or c[n-1] (they are NaN), writes info only in checked
//     mode, and never reports info 0 over a non-finite x;
//   - its x agrees with the reference backend (long double Thomas) in every system that is
//     strictly diagonally dominant on the actual data, within 32 eps times a condition bound.
// A violation prints the case and aborts, which libFuzzer records as a crash with its input.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "byte_reader.hpp"
#include "capi_ops.hpp"
#include "fuzz_case.hpp"
#include "layout_walk.hpp"
#include "operands.hpp"

namespace triax_fuzz {
namespace {

// Solves only on layouts of at most 1 MiB per operand (and as many elements), so one input runs
// in milliseconds; plans are still made for larger layouts when the system is short enough that
// the plan's workspace stays small.
constexpr std::int64_t max_bytes = 1 << 20;
constexpr std::int64_t max_planned_rows = 1 << 20;

// The decoded case, for a reproducer; TRIAX_FUZZ_PRINT=1 prints it before every input runs (to
// read what a sanitizer report was about: run the crashing input alone with it).
void print_case(const FuzzCase& f) {
  std::fprintf(stderr, "  %s, backend %d, rank %d, axis %d, algorithm %d,"
               " checked %d, threads %d, operation %d, raw values %d, misuse %d on operand %d\n",
               f.single ? "float" : "double", f.backend, f.layout.rank, f.axis,
               f.options.algorithm, f.options.checked, f.options.num_threads, int(f.operation),
               int(f.raw_values), int(f.misuse), f.misused_operand);
  for (int k = 0; k < f.layout.rank && k < 8; ++k) {
    std::fprintf(stderr, "  extent[%d] = %lld stride[%d] = %lld\n", k,
                 (long long)f.layout.extents[k], k, (long long)f.layout.strides[k]);
  }
  std::fprintf(stderr, "  offset = %lld\n", (long long)f.layout.offset);
}

[[noreturn]] void defect(const FuzzCase& f, const char* what, const char* detail = "") {
  std::fprintf(stderr, "triax fuzz defect: %s %s\n", what, detail);
  print_case(f);
  std::abort();
}

void expect_message(const FuzzCase& f, triax_status s) {
  if (s != TRIAX_SUCCESS && triax_last_error()[0] == '\0') defect(f, "failed call without a message");
}

// Whether the arguments of plan creation are bad in a way the harness can see on its own.
bool plan_arguments_bad(const FuzzCase& f, const Geometry& g) {
  return !g.well_formed || !g.axis_valid || f.backend < TRIAX_BACKEND_REFERENCE ||
         f.backend > TRIAX_BACKEND_CUDA || f.options.algorithm < 0 || f.options.algorithm > 10 ||
         f.options.num_threads < 0;
}

template <class T>
triax_status call(const FuzzCase& f, triax_plan* plan, const T* const* p, T* out, int* info) {
  switch (f.operation) {
    case Operation::in_place: return CApi<T>::in_place(plan, p[0], p[1], p[2], out, info);
    case Operation::solve: return CApi<T>::solve(plan, p[0], p[1], p[2], p[3], out, info);
    case Operation::increment: return CApi<T>::increment(plan, p[0], p[1], p[2], p[3], out, info);
  }
  return TRIAX_INTERNAL_ERROR;
}

// A deliberately wrong solve call: it must fail and write nothing. Without systems, or with
// systems of no rows, there is nothing to read or write, so the call may succeed (and then fill
// info in checked mode), but a, b, c, d and x still must not change.
template <class T>
void misuse_call(const FuzzCase& f, const Geometry& g, triax_plan* plan, Operands<T>& o,
                 int* info) {
  const Operands<T> before = o;
  const T* p[5] = {o.v[0].data(), o.v[1].data(), o.v[2].data(), o.v[3].data(), o.v[4].data()};
  T* out = f.operation == Operation::in_place ? o.v[3].data() : o.v[4].data();
  const int k = f.misused_operand;
  std::vector<unsigned char> raw((o.v[k].size() + 1) * sizeof(T));
  triax_status s = TRIAX_SUCCESS;
  switch (f.misuse) {
    case Misuse::none: return;
    case Misuse::null_pointer:
    case Misuse::misaligned_pointer: {
      const T* bad = f.misuse == Misuse::null_pointer
                         ? nullptr
                         : reinterpret_cast<const T*>(raw.data() + 1);
      if (k == 4 || (k == 3 && f.operation == Operation::in_place)) {
        out = const_cast<T*>(bad);
      } else {
        p[k] = bad;
      }
      s = call<T>(f, plan, p, out, info);
      break;
    }
    case Misuse::wrong_precision: {
      // Separate buffers of the other type, large enough, so only the precision is wrong.
      std::vector<other_t<T>> w[5];
      const other_t<T>* q[5];
      for (int j = 0; j < 5; ++j) {
        w[j].assign(o.v[j].size(), other_t<T>(1));
        q[j] = w[j].data();
      }
      s = call<other_t<T>>(f, plan, q, w[f.operation == Operation::in_place ? 3 : 4].data(), info);
      break;
    }
    case Misuse::output_is_input:
      // The output aliases a, b or c with the same layout: an overlap of an output and an input.
      out = o.v[k % 3].data();
      s = call<T>(f, plan, p, out, info);
      break;
    case Misuse::checked_without_info:
      if (!f.checked) return;  // not a misuse without checked mode
      s = call<T>(f, plan, p, out, nullptr);
      break;
  }
  const bool vacuous = g.systems == 0 || g.n == 0;
  if (s == TRIAX_SUCCESS && !vacuous) defect(f, "a misused solve call succeeded");
  expect_message(f, s);
  for (int j = 0; j < 5; ++j) {
    if (!same_bits(o.v[j], before.v[j])) {
      defect(f, "a misused solve call wrote to an operand", triax_last_error());
    }
  }
  if (s != TRIAX_SUCCESS && !same_bits(o.info, before.info)) {
    defect(f, "a rejected solve call wrote info");
  }
}

// Compares one system of a successful solve with the reference's x (xr, info ri).
template <class T>
void check_system(const FuzzCase& f, const Operands<T>& before, const Operands<T>& after,
                  const std::vector<T>& xr, int ri, std::int64_t j, std::int64_t base) {
  const std::int64_t n = f.layout.extents[f.axis], stride = f.layout.strides[f.axis];
  const int out = f.operation == Operation::in_place ? 3 : 4;
  const bool increment = f.operation == Operation::increment;
  auto row = [&](std::int64_t i) { return std::size_t(base + i * stride); };
  if (f.checked) {
    const int info = after.info[std::size_t(j)];
    if (info < 0 || info > n) defect(f, "info out of range");
    if (info == 0) {
      for (std::int64_t i = 0; i < n; ++i) {
        const T x = after.v[out][row(i)];
        if (!std::isfinite(x) && (!increment || std::isfinite(before.v[4][row(i)]))) {
          defect(f, "checked mode reported info 0 over a non-finite x");
        }
      }
    }
  }
  // Strict diagonal dominance on the actual values bounds the condition number:
  // ||A^-1||_inf <= 1 / min_i (|b_i| - |a_i| - |c_i|), and ||A||_inf <= max_i (|a_i|+|b_i|+|c_i|).
  long double margin = std::numeric_limits<long double>::infinity(), norm = 0, xmax = 0;
  long double dmax = 0, bmin = std::numeric_limits<long double>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    const long double a = i > 0 ? before.v[0][row(i)] : 0, b = before.v[1][row(i)],
                      c = i + 1 < n ? before.v[2][row(i)] : 0, d = before.v[3][row(i)];
    if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c) || !std::isfinite(d)) return;
    if (increment && !std::isfinite(before.v[4][row(i)])) return;
    margin = std::min(margin, std::abs(b) - std::abs(a) - std::abs(c));
    norm = std::max(norm, std::abs(a) + std::abs(b) + std::abs(c));
    xmax = std::max(xmax, std::abs(static_cast<long double>(xr[row(i)])));
    dmax = std::max(dmax, std::abs(d));
    bmin = std::min(bmin, std::abs(b));
  }
  if (!(margin > 0) || ri != 0 || !std::isfinite(xmax)) return;  // no bound to compare within
  // Thomas's eliminated right-hand sides of a strictly dominant system stay below i max|d| (each
  // multiplier is below 1 in magnitude), and a row is scaled by at most 2 / |b| before it; where
  // n max|d| max(1, 2 / min|b|) reaches the top of T's range an intermediate may overflow, and a
  // breakdown reported there is the documented range limit (issue 34), not a defect.
  const long double top = std::numeric_limits<T>::max();
  const bool far_from_overflow = n * dmax * std::max<long double>(1, 2 / bmin) < top &&
                                 xmax * norm < top;
  // The system itself, for a reproducer that needs neither the harness nor the input file.
  const auto print_system = [&] {
    for (std::int64_t r = 0; r < n; ++r) {
      std::fprintf(stderr, "  row %lld: a %.17g b %.17g c %.17g d %.17g u %.17g x %.17g\n",
                   (long long)r, double(before.v[0][row(r)]), double(before.v[1][row(r)]),
                   double(before.v[2][row(r)]), double(before.v[3][row(r)]),
                   double(before.v[4][row(r)]), double(after.v[out][row(r)]));
    }
  };
  if (f.checked && after.info[std::size_t(j)] != 0 && far_from_overflow) {
    print_system();
    char detail[80];
    std::snprintf(detail, sizeof detail, "(system %lld, info %d)", (long long)j,
                  after.info[std::size_t(j)]);
    defect(f, "checked mode reported a breakdown of a strictly diagonally dominant system", detail);
  }
  // Only normal numbers: near the bottom of the range rounding is absolute, not relative.
  if (xmax < std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon()) return;
  // A non-finite x is a breakdown made visible, which the API allows without checked mode (and
  // checked mode must then report it: checked above). Near the top of the range an intermediate
  // can overflow although x is representable (issue 34 item 1): that is a range limit of the
  // algorithm, not a silent wrong result, so only finite results are compared.
  for (std::int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(after.v[out][row(i)])) return;
  }
  const long double eps = std::numeric_limits<T>::epsilon();
  const long double tol = 32 * eps * (norm / margin) * xmax;
  for (std::int64_t i = 0; i < n; ++i) {
    const long double u = increment ? before.v[4][row(i)] : 0;
    const long double want = u + xr[row(i)], got = after.v[out][row(i)];
    const long double slack = increment ? 2 * eps * (std::abs(u) + std::abs(want)) : 0;
    if (!(std::abs(got - want) <= tol + slack)) {
      print_system();
      char detail[200];
      std::snprintf(detail, sizeof detail, "(system %lld row %lld: got %.17Lg, want %.17Lg, tol %.3Lg)",
                    (long long)j, (long long)i, got, want, tol + slack);
      defect(f, "x differs from the reference backend", detail);
    }
  }
}

// A proper solve call on a layout of bounded size, checked as the file comment says.
template <class T>
void solve_and_check(const FuzzCase& f, const Geometry& g, triax_plan* plan, ByteReader& in) {
  const auto span = static_cast<std::int64_t>(g.span), systems = static_cast<std::int64_t>(g.systems);
  Operands<T> o = make_operands<T>(f.layout, f.axis, span, systems, f.seed);
  if (f.raw_values) spoil(o, in);
  misuse_call(f, g, plan, o, o.info.data());
  const Operands<T> before = o;
  const T* p[5] = {o.v[0].data(), o.v[1].data(), o.v[2].data(), o.v[3].data(), o.v[4].data()};
  const int out = f.operation == Operation::in_place ? 3 : 4;
  // info is passed in unchecked mode too: it must then stay as it was.
  const triax_status s = call<T>(f, plan, p, o.v[out].data(), o.info.data());
  const bool self_overlap = g.n > 0 && systems > 0 && overlaps_itself(f.layout, f.axis);
  if (s != TRIAX_SUCCESS) {
    expect_message(f, s);
    if (!self_overlap) defect(f, "a proper solve call was rejected:", triax_last_error());
    for (int j = 0; j < 5; ++j) {
      if (!same_bits(o.v[j], before.v[j])) defect(f, "a rejected solve call wrote to an operand");
    }
    if (!same_bits(o.info, before.info)) defect(f, "a rejected solve call wrote info");
    return;
  }
  if (self_overlap) defect(f, "a solve whose output overlaps itself was accepted");
  const char* names[] = {"a", "b", "c", "d"};
  for (int j = 0; j < 4; ++j) {
    if (j != out && !same_bits(o.v[j], before.v[j])) defect(f, "a solve wrote to input", names[j]);
  }
  if (!f.checked && !same_bits(o.info, before.info)) defect(f, "an unchecked solve wrote info");
  // Elements of the output outside the layout (padding, gaps) must keep their values.
  std::vector<char> addressed(o.v[out].size(), 0);
  for_each_system(f.layout, f.axis, [&](std::int64_t, std::int64_t base) {
    for (std::int64_t i = 0; i < g.n; ++i) addressed[std::size_t(base + i * f.layout.strides[f.axis])] = 1;
  });
  for (std::size_t k = 0; k < addressed.size(); ++k) {
    if (!addressed[k] && !same_bits(o.v[out][k], before.v[out][k])) {
      defect(f, "a solve wrote outside the output's layout");
    }
  }
  if (g.n == 0) return;

  // The oracle: the reference backend's long double Thomas, checked, on the same inputs.
  triax_options ro{};
  ro.algorithm = 1;  // reference_thomas
  ro.checked = 1;
  triax_plan* ref = nullptr;
  if (CApi<T>::create(&ref, TRIAX_BACKEND_REFERENCE, &f.layout, f.axis, &ro) != TRIAX_SUCCESS) {
    defect(f, "the reference backend rejected a layout that the plan accepted:", triax_last_error());
  }
  std::vector<T> xr(o.v[out].size(), T(0));
  std::vector<int> ri(o.info.size(), -7777);
  if (CApi<T>::solve(ref, before.v[0].data(), before.v[1].data(), before.v[2].data(),
                     before.v[3].data(), xr.data(), ri.data()) != TRIAX_SUCCESS) {
    defect(f, "the reference solve failed:", triax_last_error());
  }
  triax_plan_destroy(ref);
  for_each_system(f.layout, f.axis, [&](std::int64_t j, std::int64_t base) {
    check_system<T>(f, before, o, xr, ri[std::size_t(j)], j, base);
  });
}

template <class T>
void run_case(const FuzzCase& f, const Geometry& g, bool bad, ByteReader& in) {
  triax_plan* plan = nullptr;
  const auto backend = static_cast<triax_backend>(f.backend);
  const triax_status s = CApi<T>::create(&plan, backend, &f.layout, f.axis, &f.options);
  if (s != TRIAX_SUCCESS) {
    expect_message(f, s);
    if (plan != nullptr) defect(f, "a failed plan creation returned a plan");
    return;
  }
  if (bad) defect(f, "a plan was made from bad arguments");
  if (triax_plan_system_count(plan) != static_cast<std::int64_t>(g.systems)) {
    defect(f, "triax_plan_system_count is not the product of the other extents");
  }
  const std::int64_t max_values = max_bytes / std::int64_t(sizeof(T));
  if (g.span <= max_values && g.elements <= max_values && g.systems <= max_values) {
    solve_and_check<T>(f, g, plan, in);
  }
  triax_plan_destroy(plan);
}

}  // namespace
}  // namespace triax_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace triax_fuzz;
  ByteReader in(data, size);
  FuzzCase f = decode_case(in);
  if (f.layout_kind == LayoutKind::packed) {
    triax_layout l = f.layout;
    const triax_status s = triax_layout_packed(&l, f.layout.rank, f.layout.extents);
    if (s == TRIAX_SUCCESS) {
      if (f.layout.rank < 1 || f.layout.rank > 8) defect(f, "triax_layout_packed took a bad rank");
      // Strides matter only where a dimension has more than one element and no dimension is
      // empty; there they must be the running product of the extents.
      const Geometry packed = describe(l, 0);
      std::int64_t stride = 1;
      for (int k = 0; k < l.rank; ++k) {
        if (l.extents[k] != f.layout.extents[k] ||
            (packed.elements > 0 && l.extents[k] > 1 && l.strides[k] != stride)) {
          defect(f, "triax_layout_packed made strides that are not packed");
        }
        stride *= l.extents[k];
      }
      if (l.offset != 0) defect(f, "triax_layout_packed set an offset");
      f.layout = l;
    } else if (std::memcmp(&l, &f.layout, sizeof l) != 0) {
      defect(f, "a failed triax_layout_packed wrote to the layout");
    }
  }
  static const bool print = std::getenv("TRIAX_FUZZ_PRINT") != nullptr;
  if (print) print_case(f);
  const Geometry g = describe(f.layout, f.axis);
  const wide limit = std::numeric_limits<std::int64_t>::max();
  // Offsets or element counts beyond 64 bits must be rejected (issue 25 item 5).
  const bool overflows = g.well_formed && (g.span > limit || g.elements > limit);
  const bool bad = plan_arguments_bad(f, g) || overflows;
  // A plan for very long systems owns workspace in proportion: skip those that would be made.
  if (!bad && g.n > max_planned_rows) return 0;
  if (f.single) {
    run_case<float>(f, g, bad, in);
  } else {
    run_case<double>(f, g, bad, in);
  }
  return 0;
}
