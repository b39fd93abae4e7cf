// libFuzzer target over the factored plan's C API (triax_factored_*, include/triax/triax.h): one
// matrix of n rows shared by every system of d. Each input is decoded as for triax_capi_fuzz
// (fuzz_case.hpp: backend, d's layout, axis, options, solve, misuse) plus one byte of its own (the
// factored algorithm, x's layout given or NULL, a stencil solve, a wrong n). What is checked:
//   - bad arguments the harness can see (a layout, axis or backend the general plan rejects,
//     options->algorithm not 0, a factored_algorithm that is none, n not d's extent along the
//     axis) are rejected with a message and no plan; a proper creation on the cpu or reference
//     backend with the automatic algorithm succeeds where d does not overlap itself;
//   - the plan copies the matrix: it is overwritten with NaN after creation;
//   - misused solve calls (null or misaligned pointers, the other precision, an output that is
//     d, checked mode without info, a null stencil) fail with a message and write nothing;
//   - a proper solve writes only the output's elements inside its layout, info only in checked
//     mode, never reports info 0 over a non-finite x, and where the matrix broke down when it
//     was factored (factor_info) every system reports that row and comes back non-finite;
//   - x agrees with a long double Thomas of the matrix (of B f for the stencil solve, B formed in
//     long double by the rules of triax_stencil_d) in every system where the matrix is strictly
//     diagonally dominant, within 32 eps times a condition bound.
// A violation prints the case and aborts (a crash with its input, for libFuzzer).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "byte_reader.hpp"
#include "capi_ops.hpp"
#include "fuzz_case.hpp"
#include "layout_walk.hpp"
#include "operands.hpp"

namespace triax_fuzz {
namespace {

constexpr std::int64_t max_bytes = 1 << 20;  // solves only on layouts up to 1 MiB an operand

// The factored entry points of one precision, so the harness is written once.
template <class T>
struct Factored;
template <>
struct Factored<double> {
  using Stencil = triax_stencil_d;
  static constexpr auto create = triax_factored_plan_create_d;
  static constexpr auto in_place = triax_factored_solve_in_place_d;
  static constexpr auto solve = triax_factored_solve_d;
  static constexpr auto increment = triax_factored_solve_increment_d;
  static constexpr auto stencil = triax_factored_solve_stencil_d;
};
template <>
struct Factored<float> {
  using Stencil = triax_stencil_f;
  static constexpr auto create = triax_factored_plan_create_f;
  static constexpr auto in_place = triax_factored_solve_in_place_f;
  static constexpr auto solve = triax_factored_solve_f;
  static constexpr auto increment = triax_factored_solve_increment_f;
  static constexpr auto stencil = triax_factored_solve_stencil_f;
};

// The byte of the factored case: bits 0-2 the factored algorithm (7: none), bit 3 x's layout
// given (else NULL), bit 4 a stencil solve instead of f.operation (as separate), bit 5 n off by
// one (a misuse of creation).
struct FactoredChoice {
  int algorithm = 0;
  bool x_layout_given = false;
  bool stencil = false;
  bool wrong_n = false;
};

FactoredChoice decode_choice(ByteReader& in) {
  const std::uint8_t b = in.u8();
  FactoredChoice c;
  // Mostly automatic (0), so most inputs reach a solve; 1 and 2 are the CPU algorithms, 3..6
  // the CUDA ones (rejected or run elsewhere), 7 is no algorithm.
  static constexpr int algorithms[8] = {0, 0, 0, 1, 2, 0, 6, 7};
  c.algorithm = algorithms[b & 7];
  c.x_layout_given = (b >> 3) & 1;
  c.stencil = (b >> 4) & 1;
  c.wrong_n = ((b >> 5) & 7) == 7;  // one input in eight
  return c;
}

void print_case(const FuzzCase& f, const FactoredChoice& c) {
  std::fprintf(stderr, "  %s, backend %d, rank %d, axis %d, options.algorithm %d, checked %d,"
               " threads %d, operation %d%s, factored algorithm %d, x layout %s, wrong n %d,"
               " raw values %d, misuse %d on operand %d\n",
               f.single ? "float" : "double", f.backend, f.layout.rank, f.axis,
               f.options.algorithm, f.options.checked, f.options.num_threads, int(f.operation),
               c.stencil ? " (stencil)" : "", c.algorithm, c.x_layout_given ? "given" : "NULL",
               int(c.wrong_n), int(f.raw_values), int(f.misuse), f.misused_operand);
  for (int k = 0; k < f.layout.rank && k < 8; ++k) {
    std::fprintf(stderr, "  extent[%d] = %lld stride[%d] = %lld\n", k,
                 (long long)f.layout.extents[k], k, (long long)f.layout.strides[k]);
  }
  std::fprintf(stderr, "  offset = %lld\n", (long long)f.layout.offset);
}

struct Context {
  const FuzzCase& f;
  const FactoredChoice& c;
  [[noreturn]] void defect(const char* what, const char* detail = "") const {
    std::fprintf(stderr, "triax fuzz defect: %s %s\n", what, detail);
    print_case(f, c);
    std::abort();
  }
  void expect_message(triax_status s) const {
    if (s != TRIAX_SUCCESS && triax_last_error()[0] == '\0') defect("failed call without a message");
  }
};

// Stencil weights from the seed: any values, the struct's unused taps included.
template <class T>
typename Factored<T>::Stencil make_stencil(std::uint64_t seed) {
  typename Factored<T>::Stencil s{};
  SplitMix rng(seed ^ 0x57e9c11u);
  for (int k = 0; k < 5; ++k) {
    s.interior[k] = T(rng.uniform(-1, 1));
    for (int r = 0; r < 2; ++r) {
      s.first[r][k] = T(rng.uniform(-1, 1));
      s.last[r][k] = T(rng.uniform(-1, 1));
    }
  }
  return s;
}

// (B f)_i in long double by triax_stencil_d's rules; *magnitude gets sum |w f| of the row.
template <class T, class Row>
long double stencil_row(const typename Factored<T>::Stencil& s, const Row& f, std::int64_t n,
                        std::int64_t i, long double* magnitude) {
  long double sum = 0, mag = 0;
  auto tap = [&](T w, std::int64_t j) {
    if (j < 0 || j >= n) return;  // taps past the line count as zero
    const long double term = static_cast<long double>(w) * f(j);
    sum += term;
    mag += std::abs(term);
  };
  const bool interior = i >= 2 && i <= n - 3;
  if (interior) {
    for (int k = -2; k <= 2; ++k) tap(s.interior[k + 2], i + k);
  } else if (i <= n - 1 - i) {  // the first closure (on a tie too)
    for (int t = 0; t < 5; ++t) tap(s.first[i][t], t);
  } else {
    const std::int64_t r = n - 1 - i;
    for (int t = 0; t < 5; ++t) tap(s.last[r][t], n - 1 - t);
  }
  *magnitude = mag;
  return sum;
}

template <class T>
triax_status call(const FuzzCase& f, const FactoredChoice& c, triax_factored_plan* plan,
                  const typename Factored<T>::Stencil* stencil, const T* d, T* out, int* info) {
  if (c.stencil) return Factored<T>::stencil(plan, stencil, d, out, info);
  switch (f.operation) {
    case Operation::in_place: return Factored<T>::in_place(plan, out, info);
    case Operation::solve: return Factored<T>::solve(plan, d, out, info);
    case Operation::increment: return Factored<T>::increment(plan, d, out, info);
  }
  return TRIAX_INTERNAL_ERROR;
}

// Which operation writes where: in place writes d (v[3]); the others x or u (v[4]).
bool writes_d(const FuzzCase& f, const FactoredChoice& c) {
  return !c.stencil && f.operation == Operation::in_place;
}

// A deliberately wrong solve call: it must fail (unless there is nothing to solve) and write
// nothing.
template <class T>
void misuse_call(const Context& ctx, const Geometry& g, triax_factored_plan* plan, Operands<T>& o,
                 const typename Factored<T>::Stencil& stencil) {
  const FuzzCase& f = ctx.f;
  const Operands<T> before = o;
  const int out_k = writes_d(f, ctx.c) ? 3 : 4;
  const T* d = o.v[3].data();
  T* out = o.v[out_k].data();
  int* info = o.info.data();
  const typename Factored<T>::Stencil* s = &stencil;
  std::vector<unsigned char> raw((o.v[3].size() + 1) * sizeof(T));
  const T* misaligned = reinterpret_cast<const T*>(raw.data() + 1);
  triax_status st = TRIAX_SUCCESS;
  const bool on_output = f.misused_operand >= 3 || out_k == 3;
  switch (f.misuse) {
    case Misuse::none: return;
    case Misuse::null_pointer:
    case Misuse::misaligned_pointer: {
      const T* bad = f.misuse == Misuse::null_pointer ? nullptr : misaligned;
      if (f.misuse == Misuse::null_pointer && f.misused_operand < 3 && ctx.c.stencil) {
        s = nullptr;  // the stencil is the third input of this call
      } else if (on_output) {
        out = const_cast<T*>(bad);
      } else {
        d = bad;
      }
      st = call<T>(f, ctx.c, plan, s, d, out, info);
      break;
    }
    case Misuse::wrong_precision: {
      using U = other_t<T>;
      std::vector<U> wd(o.v[3].size(), U(1)), wx(o.v[4].size(), U(1));
      const typename Factored<U>::Stencil other{};
      st = call<U>(f, ctx.c, plan, &other, wd.data(), (out_k == 3 ? wd : wx).data(), info);
      break;
    }
    case Misuse::output_is_input:
      // In place the output is d by design, and a separate solve into x = d laid out as d is
      // one too (triax::Solver's rule); u = d and x = f must be rejected.
      if (out_k == 3 || (!ctx.c.stencil && f.operation == Operation::solve)) return;
      out = o.v[3].data();  // u (or x of the stencil solve) is d: they share every element
      st = call<T>(f, ctx.c, plan, s, d, out, info);
      break;
    case Misuse::checked_without_info:
      if (!f.checked) return;
      st = call<T>(f, ctx.c, plan, s, d, out, nullptr);
      break;
  }
  const bool vacuous = g.systems == 0 || g.n == 0;
  if (st == TRIAX_SUCCESS && !vacuous) ctx.defect("a misused solve call succeeded");
  ctx.expect_message(st);
  for (int j = 0; j < 5; ++j) {
    if (!same_bits(o.v[j], before.v[j])) ctx.defect("a misused solve call wrote to an operand");
  }
  if (st != TRIAX_SUCCESS && !same_bits(o.info, before.info)) {
    ctx.defect("a rejected solve call wrote info");
  }
}

// One system of a successful solve against a long double Thomas of the matrix (a, b, c the
// matrix as created, before it was overwritten).
template <class T>
void check_system(const Context& ctx, const std::vector<T> (&m)[3], const Operands<T>& before,
                  const Operands<T>& after, const typename Factored<T>::Stencil& stencil,
                  std::int64_t factor_info, std::int64_t j, std::int64_t base) {
  const FuzzCase& f = ctx.f;
  const std::int64_t n = f.layout.extents[f.axis], stride = f.layout.strides[f.axis];
  const int out = writes_d(f, ctx.c) ? 3 : 4;
  const bool increment = !ctx.c.stencil && f.operation == Operation::increment;
  auto row = [&](std::int64_t i) { return std::size_t(base + i * stride); };
  const int info = f.checked ? after.info[std::size_t(j)] : 0;
  if (f.checked && (info < 0 || info > n)) ctx.defect("info out of range");
  if (factor_info > 0) {
    // The factorisation broke down: every solve reports that row and writes NaN.
    if (f.checked && info != factor_info) ctx.defect("info is not the factorisation's breakdown row");
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isfinite(after.v[out][row(i)])) {
        ctx.defect("a finite x from a matrix whose factorisation broke down");
      }
    }
    return;
  }
  if (f.checked && info == 0) {
    for (std::int64_t i = 0; i < n; ++i) {
      const T x = after.v[out][row(i)];
      if (!std::isfinite(x) && (!increment || std::isfinite(before.v[4][row(i)]))) {
        ctx.defect("checked mode reported info 0 over a non-finite x");
      }
    }
  }
  // The right-hand side in long double (B f for the stencil solve) and the matrix's dominance.
  std::vector<long double> rhs(static_cast<std::size_t>(n));
  long double rhs_mag = 0, margin = std::numeric_limits<long double>::infinity(), norm = 0;
  const auto fval = [&](std::int64_t i) { return static_cast<long double>(before.v[3][row(i)]); };
  for (std::int64_t i = 0; i < n; ++i) {
    const long double a = i > 0 ? m[0][std::size_t(i)] : 0, b = m[1][std::size_t(i)],
                      c = i + 1 < n ? m[2][std::size_t(i)] : 0;
    if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c)) return;
    margin = std::min(margin, std::abs(b) - std::abs(a) - std::abs(c));
    norm = std::max(norm, std::abs(a) + std::abs(b) + std::abs(c));
    long double mag = std::abs(fval(i));
    rhs[std::size_t(i)] = ctx.c.stencil ? stencil_row<T>(stencil, fval, n, i, &mag) : fval(i);
    rhs_mag = std::max(rhs_mag, mag);
    if (!std::isfinite(rhs[std::size_t(i)]) || !std::isfinite(mag)) return;
    if (increment && !std::isfinite(before.v[4][row(i)])) return;
  }
  if (!(margin > 0)) return;  // no condition bound to compare within
  // Long double Thomas (no pivoting needed: strictly dominant).
  std::vector<long double> cp(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const long double a = i > 0 ? m[0][std::size_t(i)] : 0, c = i + 1 < n ? m[2][std::size_t(i)] : 0;
    const long double piv = m[1][std::size_t(i)] - (i > 0 ? a * cp[std::size_t(i - 1)] : 0);
    cp[std::size_t(i)] = c / piv;
    x[std::size_t(i)] = (rhs[std::size_t(i)] - (i > 0 ? a * x[std::size_t(i - 1)] : 0)) / piv;
  }
  long double xmax = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    if (i + 1 < n) x[std::size_t(i)] -= cp[std::size_t(i)] * x[std::size_t(i + 1)];
    xmax = std::max(xmax, std::abs(x[std::size_t(i)]));
  }
  const long double top = std::numeric_limits<T>::max();
  // As triax_capi_fuzz: a breakdown reported near the top of the range is the documented range
  // limit; far from it, checked mode must not report one for a strictly dominant matrix.
  const bool far_from_overflow = n * rhs_mag * std::max<long double>(1, 2 / margin) < top &&
                                 xmax * norm < top;
  // The system itself, for a reproducer that needs neither the harness nor the input file.
  const auto print_system = [&] {
    for (std::int64_t r = 0; r < n; ++r) {
      std::fprintf(stderr, "  row %lld: a %.17g b %.17g c %.17g d %.17g u %.17g x %.17g\n",
                   (long long)r, double(m[0][std::size_t(r)]), double(m[1][std::size_t(r)]),
                   double(m[2][std::size_t(r)]), double(before.v[3][row(r)]),
                   double(before.v[4][row(r)]), double(after.v[out][row(r)]));
    }
    std::fprintf(stderr, "  info %d\n", info);
  };
  if (f.checked && info != 0 && far_from_overflow) {
    print_system();
    ctx.defect("checked mode reported a breakdown of a strictly diagonally dominant system");
  }
  // Only results in the normal range, and only finite ones (a non-finite x is a visible
  // breakdown, which checked mode reports: checked above).
  if (xmax < std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon()) return;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(after.v[out][row(i)])) return;
  }
  const long double eps = std::numeric_limits<T>::epsilon();
  // B f is formed in T: each row's rounding is within a few eps of sum |w f|, and A^{-1} carries
  // it at most 1 / margin times.
  const long double tol = 32 * eps * (norm / margin) * xmax +
                          (ctx.c.stencil ? 16 * eps * rhs_mag / margin : 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const long double u = increment ? before.v[4][row(i)] : 0;
    const long double want = u + x[std::size_t(i)], got = after.v[out][row(i)];
    const long double slack = increment ? 2 * eps * (std::abs(u) + std::abs(want)) : 0;
    if (!(std::abs(got - want) <= tol + slack)) {
      char detail[200];
      std::snprintf(detail, sizeof detail,
                    "(system %lld row %lld: got %.17Lg, want %.17Lg, tol %.3Lg)", (long long)j,
                    (long long)i, got, want, tol + slack);
      print_system();
      ctx.defect("x differs from the long double solve", detail);
    }
  }
}

template <class T>
void solve_and_check(const Context& ctx, const Geometry& g, triax_factored_plan* plan,
                     const std::vector<T> (&m)[3], ByteReader& in) {
  const FuzzCase& f = ctx.f;
  const auto span = static_cast<std::int64_t>(g.span), systems = static_cast<std::int64_t>(g.systems);
  Operands<T> o = make_operands<T>(f.layout, f.axis, span, systems, f.seed);
  if (f.raw_values) spoil(o, in);  // only d (v[3]) and u (v[4]) matter here
  const auto stencil = make_stencil<T>(f.seed);
  misuse_call<T>(ctx, g, plan, o, stencil);
  triax_factored_plan_properties props{};
  if (triax_factored_plan_query(plan, &props) != TRIAX_SUCCESS) {
    ctx.defect("triax_factored_plan_query failed on a plan:", triax_last_error());
  }
  const Operands<T> before = o;
  const int out = writes_d(f, ctx.c) ? 3 : 4;
  const triax_status s = call<T>(f, ctx.c, plan, &stencil, o.v[3].data(), o.v[out].data(),
                                 o.info.data());
  const bool self_overlap = g.n > 0 && systems > 0 && overlaps_itself(f.layout, f.axis);
  if (s != TRIAX_SUCCESS) {
    ctx.expect_message(s);
    if (!self_overlap) ctx.defect("a proper solve call was rejected:", triax_last_error());
    for (int j = 0; j < 5; ++j) {
      if (!same_bits(o.v[j], before.v[j])) ctx.defect("a rejected solve call wrote to an operand");
    }
    if (!same_bits(o.info, before.info)) ctx.defect("a rejected solve call wrote info");
    return;
  }
  if (self_overlap) ctx.defect("a solve whose output overlaps itself was accepted");
  for (int j = 0; j < 4; ++j) {
    if (j != out && !same_bits(o.v[j], before.v[j])) ctx.defect("a solve wrote to an input");
  }
  if (!f.checked && !same_bits(o.info, before.info)) ctx.defect("an unchecked solve wrote info");
  std::vector<char> addressed(o.v[out].size(), 0);
  for_each_system(f.layout, f.axis, [&](std::int64_t, std::int64_t base) {
    for (std::int64_t i = 0; i < g.n; ++i) {
      addressed[std::size_t(base + i * f.layout.strides[f.axis])] = 1;
    }
  });
  for (std::size_t k = 0; k < addressed.size(); ++k) {
    if (!addressed[k] && !same_bits(o.v[out][k], before.v[out][k])) {
      ctx.defect("a solve wrote outside the output's layout");
    }
  }
  if (g.n == 0) return;
  for_each_system(f.layout, f.axis, [&](std::int64_t j, std::int64_t base) {
    check_system<T>(ctx, m, before, o, stencil, props.factor_info, j, base);
  });
}

template <class T>
void run_case(const Context& ctx, const Geometry& g, bool layout_bad, ByteReader& in) {
  const FuzzCase& f = ctx.f;
  const FactoredChoice& c = ctx.c;
  // The matrix: n rows (at least one element, so pointers are not null), strictly dominant,
  // a[0] and c[n-1] NaN; with raw values, spoiled like the operands.
  // One row more than n, for the misuse that passes n + 1.
  // A bad layout may claim any n: the harness then passes at most max_bytes rows (rejected
  // either way).
  const std::int64_t n = g.axis_valid && g.well_formed && g.n <= max_bytes ? std::int64_t(g.n) : 0;
  const std::int64_t rows = n + 1;
  triax_layout line{};
  line.rank = 1;
  line.extents[0] = rows;
  line.strides[0] = 1;
  Operands<T> mo = make_operands<T>(line, 0, rows, 1, f.seed ^ 0x3a7f);
  if (n > 0) mo.v[2][std::size_t(n - 1)] = std::numeric_limits<T>::quiet_NaN();
  if (f.raw_values) {  // half the remaining bytes spoil the matrix, the rest d and u
    ByteReader part = in.take(in.remaining() / 2);
    spoil(mo, part);
  }
  const std::vector<T> m[3] = {mo.v[0], mo.v[1], mo.v[2]};
  const std::int64_t n_given = c.wrong_n ? n + 1 : n;
  const bool bad = layout_bad || f.options.algorithm != 0 || c.algorithm == 7 || c.wrong_n;
  triax_factored_plan* plan = nullptr;
  const triax_layout* x_layout = c.x_layout_given ? &f.layout : nullptr;
  const triax_status s =
      Factored<T>::create(&plan, static_cast<triax_backend>(f.backend), mo.v[0].data(),
                          mo.v[1].data(), mo.v[2].data(), n_given, &f.layout, x_layout, f.axis,
                          &f.options, c.algorithm);
  if (s != TRIAX_SUCCESS) {
    ctx.expect_message(s);
    if (plan != nullptr) ctx.defect("a failed plan creation returned a plan");
    const bool must_work = !bad && c.algorithm == 0 &&
                           (f.backend == TRIAX_BACKEND_CPU || f.backend == TRIAX_BACKEND_REFERENCE) &&
                           g.n > 0 && g.systems > 0 && g.elements <= max_bytes &&
                           !overlaps_itself(f.layout, f.axis);  // (a walk over every element)
    if (must_work) ctx.defect("a proper factored plan was rejected:", triax_last_error());
    return;
  }
  if (bad) ctx.defect("a factored plan was made from bad arguments");
  if (triax_factored_plan_system_count(plan) != static_cast<std::int64_t>(g.systems)) {
    ctx.defect("triax_factored_plan_system_count is not the product of the other extents");
  }
  // The plan owns a copy: the caller's matrix may change or go away.
  for (auto& v : mo.v) std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
  const std::int64_t max_values = max_bytes / std::int64_t(sizeof(T));
  if (g.span <= max_values && g.elements <= max_values && g.systems <= max_values) {
    solve_and_check<T>(ctx, g, plan, m, in);
  }
  triax_factored_plan_destroy(plan);
}

}  // namespace
}  // namespace triax_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace triax_fuzz;
  ByteReader in(data, size);
  FuzzCase f = decode_case(in);
  const FactoredChoice choice = decode_choice(in);
  if (f.layout_kind == LayoutKind::packed) {
    triax_layout l = f.layout;
    if (triax_layout_packed(&l, f.layout.rank, f.layout.extents) == TRIAX_SUCCESS) f.layout = l;
  }
  const Context ctx{f, choice};
  static const bool print = std::getenv("TRIAX_FUZZ_PRINT") != nullptr;
  if (print) print_case(f, choice);
  const Geometry g = describe(f.layout, f.axis);
  const wide limit = std::numeric_limits<std::int64_t>::max();
  const bool overflows = g.well_formed && (g.span > limit || g.elements > limit);
  const bool layout_bad = !g.well_formed || !g.axis_valid || f.backend < TRIAX_BACKEND_REFERENCE ||
                          f.backend > TRIAX_BACKEND_CUDA || f.options.num_threads < 0 || overflows;
  // The plan copies and factors n rows: keep n to what the harness allocates.
  if (!layout_bad && g.n > max_bytes) return 0;
  if (f.single) {
    run_case<float>(ctx, g, layout_bad, in);
  } else {
    run_case<double>(ctx, g, layout_bad, in);
  }
  return 0;
}
