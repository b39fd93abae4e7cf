/* The factored plan's C API from C (triax_factored_*): the three solves and solve_stencil in
 * both precisions on both host backends, along both axes of a 2-D grid whose d has a ghost
 * layer and whose x is packed, against the general C plan on the reference backend (a, b, c
 * expanded to every system; B f formed here by triax.h's rule for the stencil); outputs poisoned
 * with NaN first, padding poisoned with -7.5 and checked untouched. Then checked mode (a
 * breakdown, a NaN in one system), the properties, every bad argument (a status, a message
 * naming the argument and its value, nothing written) and README's C example. Prints each
 * failure; non-zero exit if there was one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "triax/triax.h"

/* A 2-D grid of NX x NY points; d (and f) with one ghost point on each side of each dimension,
 * x packed. */
enum { NX = 7, NY = 37, GX = NX + 2, GY = NY + 2, DSIZE = GX * GY, XSIZE = NX * NY, NMAX = 64 };
static triax_layout LD, LX; /* d's and x's layouts */

static void make_layouts(void) {
  const int64_t extents[2] = {NX, NY};
  triax_layout_packed(&LX, 2, extents);
  LD = LX;
  LD.strides[1] = GX;
  LD.offset = 1 + GX;
}

static int64_t at(const triax_layout* l, int i, int j) {
  return l->offset + i * l->strides[0] + j * l->strides[1];
}

/* The matrices: one system's diagonals of n rows (a[0] and c[n-1] are NaN: never read). */
enum { RANDOM, PADE, SLOW, MATRICES };
static const char* const MATRIX_NAMES[MATRICES] = {"random", "pade", "slow"};
static const double CONDITION[MATRICES] = {6, 6, 400};

static void make_matrix(int kind, int n, unsigned seed, double* a, double* b, double* c) {
  for (int i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    const double r1 = (double)(seed % 1000) / 500.0 - 1, r2 = (double)((seed >> 10) % 1000) / 500.0 - 1;
    if (kind == RANDOM) a[i] = r1, c[i] = r2, b[i] = (r1 < 0 ? -1 : 1) * (fabs(r1) + fabs(r2) + 0.6);
    if (kind == PADE) a[i] = 0.25, b[i] = 1, c[i] = 0.25;
    if (kind == SLOW) a[i] = 1, b[i] = -2.01, c[i] = 1;
  }
  if (kind == PADE && n >= 2) c[0] = 2, a[n - 1] = 2;
  a[0] = NAN, c[n - 1] = NAN;
}

/* The stencil of the tests: every one of its 25 weights non-zero and distinct. */
static void make_stencil(double w[25]) {
  for (int k = 0; k < 25; ++k) w[k] = 0.1 * (double)((k * 7) % 25) - 1.2 + (k == 12 ? 0.05 : 0);
}

/* Row i of B f along one line of n points (triax.h's rule), f at stride s from f0. */
static double stencil_row(const double w[25], const double* f0, int s, int n, int i) {
  long double sum = 0;
  if (i >= 2 && i <= n - 3) {
    for (int k = -2; k <= 2; ++k) sum += (long double)w[k + 2] * f0[(i + k) * s];
  } else if (i <= n - 1 - i) { /* the first closure: rows 0, 1, taps from the start */
    for (int t = 0; t < 5 && t < n; ++t) sum += (long double)w[5 + 5 * i + t] * f0[t * s];
  } else { /* the last closure: row n-1-r, taps from the end */
    const int r = n - 1 - i;
    for (int t = 0; t < 5 && t < n; ++t) sum += (long double)w[15 + 5 * r + t] * f0[(n - 1 - t) * s];
  }
  return (double)sum;
}

/* For each matrix, axis and mode: the factored plan of precision T on `backend` against the
 * general plan on the reference backend. Mode 0 in place, 1 separate, 2 increment, 3 stencil. */
#define DEFINE_CHECK_SOLVES(T, S, EPS)                                                          \
  static void check_solves_##S(triax_backend backend) {                                         \
    static T a[NMAX], b[NMAX], c[NMAX], d[DSIZE], x[XSIZE], u0[XSIZE];                          \
    static T ea[DSIZE], eb[DSIZE], ec[DSIZE], rd[DSIZE], rx[DSIZE];                             \
    double da[NMAX], db[NMAX], dc[NMAX], w[25], fw[DSIZE];                                      \
    triax_stencil_##S st;                                                                       \
    make_stencil(w);                                                                            \
    for (int k = 0; k < 5; ++k) {                                                               \
      st.interior[k] = (T)w[k];                                                                 \
      for (int r = 0; r < 2; ++r) st.first[r][k] = (T)w[5 + 5 * r + k], st.last[r][k] = (T)w[15 + 5 * r + k]; \
    }                                                                                           \
    for (int k = 0; k < 25; ++k) w[k] = (double)(T)w[k];                                        \
    for (int m = 0; m < MATRICES; ++m) {                                                        \
      for (int axis = 0; axis < 2; ++axis) {                                                    \
        const int n = axis == 0 ? NX : NY, count = axis == 0 ? NY : NX;                        \
        make_matrix(m, n, 11u + (unsigned)m, da, db, dc);                                       \
        for (int i = 0; i < n; ++i) a[i] = (T)da[i], b[i] = (T)db[i], c[i] = (T)dc[i];          \
        triax_factored_plan* plan = NULL;                                                       \
        CHECK(triax_factored_plan_create_##S(&plan, backend, a, b, c, n, &LD, &LX, axis, NULL,  \
                                             0) == TRIAX_SUCCESS,                               \
              #S " create: %s", triax_last_error());                                            \
        if (plan == NULL) continue;                                                             \
        CHECK(triax_factored_plan_system_count(plan) == count, "system count");                 \
        CHECK(triax_factored_plan_fuses_stencil(plan) == 0, "a host plan fuses");              \
        triax_plan* ref = NULL;                                                                 \
        CHECK(triax_plan_create_##S(&ref, TRIAX_BACKEND_REFERENCE, &LD, axis, NULL) ==          \
                  TRIAX_SUCCESS, "reference: %s", triax_last_error());                          \
        if (ref == NULL) { triax_factored_plan_destroy(plan); continue; }                      \
        for (int mode = 0; mode < 4; ++mode) {                                                  \
          unsigned seed = 99u + (unsigned)(mode + 4 * axis + 8 * m);                            \
          for (int k = 0; k < DSIZE; ++k) d[k] = (T)-7.5, ea[k] = eb[k] = ec[k] = (T)0;         \
          for (int j = 0; j < NY; ++j) {                                                        \
            for (int i = 0; i < NX; ++i) {                                                      \
              seed = seed * 1103515245u + 12345u;                                               \
              const int64_t o = at(&LD, i, j);                                                  \
              const int r = axis == 0 ? i : j;                                                  \
              d[o] = (T)((double)(seed % 2000) / 1000.0 - 1);                                   \
              ea[o] = a[r], eb[o] = b[r], ec[o] = c[r];                                         \
              u0[at(&LX, i, j)] = (T)((double)((seed >> 11) % 2000) / 1000.0 - 1);              \
            }                                                                                   \
          }                                                                                     \
          for (int k = 0; k < XSIZE; ++k) x[k] = mode == 2 ? u0[k] : (T)NAN;                    \
          /* The right-hand side of the reference: d, or B f formed here (f = d). */           \
          memcpy(rd, d, sizeof(rd));                                                            \
          if (mode == 3) {                                                                      \
            for (int k = 0; k < DSIZE; ++k) fw[k] = (double)d[k];                               \
            for (int s = 0; s < count; ++s) {                                                   \
              const int64_t o0 = axis == 0 ? at(&LD, 0, s) : at(&LD, s, 0);                     \
              const int stride = (int)LD.strides[axis];                                         \
              for (int i = 0; i < n; ++i) rd[o0 + i * stride] = (T)stencil_row(w, fw + o0, stride, n, i); \
            }                                                                                   \
          }                                                                                     \
          CHECK(triax_solve_##S(ref, ea, eb, ec, rd, rx, NULL) == TRIAX_SUCCESS, "ref: %s",     \
                triax_last_error());                                                            \
          T d_in[DSIZE];                                                                        \
          memcpy(d_in, d, sizeof(d_in));                                                        \
          triax_status st_ = TRIAX_INTERNAL_ERROR;                                              \
          if (mode == 0) st_ = triax_factored_solve_in_place_##S(plan, d, NULL);                \
          if (mode == 1) st_ = triax_factored_solve_##S(plan, d, x, NULL);                      \
          if (mode == 2) st_ = triax_factored_solve_increment_##S(plan, d, x, NULL);            \
          if (mode == 3) st_ = triax_factored_solve_stencil_##S(plan, &st, d, x, NULL);         \
          CHECK(st_ == TRIAX_SUCCESS, #S " mode %d: %s", mode, triax_last_error());             \
          double xmax = 1;                                                                      \
          for (int k = 0; k < DSIZE; ++k) xmax = fmax(xmax, fabs((double)rx[k]));               \
          const double tol = 64 * (EPS) * CONDITION[m] * (mode == 3 ? 8 : 1) * xmax;            \
          int bad = 0, padding = 0;                                                             \
          for (int j = 0; j < NY; ++j) {                                                        \
            for (int i = 0; i < NX; ++i) {                                                      \
              const int64_t od = at(&LD, i, j), ox = at(&LX, i, j);                             \
              const double got = mode == 0 ? (double)d[od] : (double)x[ox] - (mode == 2 ? (double)u0[ox] : 0); \
              if (!(fabs(got - (double)rx[od]) <= tol)) {                                       \
                if (bad++ == 0) printf("  %s axis %d mode %d (%d,%d): %g, want %g\n",           \
                                       MATRIX_NAMES[m], axis, mode, i, j, got, (double)rx[od]); \
              }                                                                                 \
            }                                                                                   \
          }                                                                                     \
          for (int k = 0; k < DSIZE; ++k) {                                                     \
            const int inside = k % GX >= 1 && k % GX <= NX && k / GX >= 1 && k / GX <= NY;     \
            if (mode != 0 && d[k] != d_in[k]) ++padding; /* d untouched unless in place */      \
            if (mode == 0 && !inside && d[k] != (T)-7.5) ++padding;                             \
          }                                                                                     \
          CHECK(bad == 0, #S " %s axis %d mode %d: %d wrong", MATRIX_NAMES[m], axis, mode, bad); \
          CHECK(padding == 0, #S " %s axis %d mode %d: %d elements of d written",              \
                MATRIX_NAMES[m], axis, mode, padding);                                          \
        }                                                                                       \
        triax_plan_destroy(ref);                                                                \
        triax_factored_plan_destroy(plan);                                                      \
      }                                                                                         \
    }                                                                                           \
  }
DEFINE_CHECK_SOLVES(double, d, 2.220446049250313e-16)
DEFINE_CHECK_SOLVES(float, f, 1.1920929e-07)

/* Checked mode (cpu, double): a matrix whose pivot of row 3 is zero breaks down for every
 * system (factor_info 4, info 4, x NaN); with a clean matrix, a NaN in system 2 is reported
 * there only. solve_stencil's info likewise. */
static void check_checked_mode(void) {
  double a[NY], b[NY], c[NY], d[DSIZE], x[XSIZE];
  int info[NX];
  make_matrix(RANDOM, NY, 5u, a, b, c);
  const double b3 = b[3];
  a[3] = 0, b[3] = 0;
  const triax_options checked = {0, 1, NULL, 0};
  for (int k = 0; k < DSIZE; ++k) d[k] = 0.5;
  triax_factored_plan* plan = NULL;
  CHECK(triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, NY, &LD, &LX, 1, &checked,
                                     0) == TRIAX_SUCCESS, "create: %s", triax_last_error());
  if (plan == NULL) return;
  triax_factored_plan_properties p;
  CHECK(triax_factored_plan_query(plan, &p) == TRIAX_SUCCESS, "query: %s", triax_last_error());
  CHECK(p.factor_info == 4, "factor_info %lld", (long long)p.factor_info);
  CHECK(triax_factored_solve_d(plan, d, x, NULL) == TRIAX_INVALID_ARGUMENT,
        "checked solve without info accepted");
  CHECK(strstr(triax_last_error(), "info is null") != NULL, "message: %s", triax_last_error());
  CHECK(triax_factored_solve_d(plan, d, x, info) == TRIAX_SUCCESS, "solve: %s", triax_last_error());
  for (int i = 0; i < NX; ++i) CHECK(info[i] == 4, "breakdown: info[%d] = %d", i, info[i]);
  for (int k = 0; k < XSIZE; ++k) CHECK(isnan(x[k]), "breakdown: x[%d] = %g", k, x[k]);
  triax_factored_plan_destroy(plan);

  b[3] = b3, a[3] = 0.1;
  plan = NULL;
  CHECK(triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, NY, &LD, &LX, 1, &checked,
                                     0) == TRIAX_SUCCESS, "create: %s", triax_last_error());
  if (plan == NULL) return;
  d[at(&LD, 2, 20)] = NAN;
  triax_stencil_d pade_rhs;
  memset(&pade_rhs, 0, sizeof(pade_rhs));
  pade_rhs.interior[1] = -0.75, pade_rhs.interior[3] = 0.75;
  pade_rhs.first[0][0] = -1, pade_rhs.first[0][1] = 1, pade_rhs.first[1][0] = -0.75, pade_rhs.first[1][2] = 0.75;
  pade_rhs.last[0][0] = 1, pade_rhs.last[0][1] = -1, pade_rhs.last[1][0] = 0.75, pade_rhs.last[1][2] = -0.75;
  for (int stencil = 0; stencil < 2; ++stencil) {
    for (int i = 0; i < NX; ++i) info[i] = -1;
    CHECK((stencil ? triax_factored_solve_stencil_d(plan, &pade_rhs, d, x, info)
                   : triax_factored_solve_d(plan, d, x, info)) == TRIAX_SUCCESS,
          "solve: %s", triax_last_error());
    for (int i = 0; i < NX; ++i) {
      CHECK(i == 2 ? info[i] > 0 : info[i] == 0, "stencil %d: info[%d] = %d", stencil, i, info[i]);
    }
  }
  triax_factored_plan_destroy(plan);
}

/* The properties of a Pade plan: compressed (the factors converge), one group, Thomas on cpu,
 * CR's coefficients when asked for; one matrix per group through create_groups. */
static void check_properties(void) {
  enum { N = 256 };
  double a[N], b[N], c[N];
  make_matrix(PADE, N, 1u, a, b, c);
  const int64_t extents[2] = {N, 8};
  triax_layout l;
  triax_layout_packed(&l, 2, extents);
  triax_factored_plan* plan = NULL;
  triax_factored_plan_properties p;
  memset(&p, 0xff, sizeof(p));
  CHECK(triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, N, &l, NULL, 0, NULL, 0) ==
        TRIAX_SUCCESS, "create: %s", triax_last_error());
  CHECK(triax_factored_plan_query(plan, &p) == TRIAX_SUCCESS, "query: %s", triax_last_error());
  CHECK(p.system_length == N && p.system_count == 8 && p.group_count == 1, "sizes");
  CHECK(p.compressed == 1 && p.stored_rows < 64 && p.factor_info == 0 && p.scaled == 0,
        "compression: stored %lld", (long long)p.stored_rows);
  CHECK(p.algorithm == 1 && p.backend == TRIAX_BACKEND_CPU && p.fuses_stencil == 0,
        "algorithm %d backend %d", p.algorithm, p.backend);
  CHECK(p.head_rows > 0 && p.tail_rows > 0 && p.workspace_bytes > 0, "head %lld tail %lld",
        (long long)p.head_rows, (long long)p.tail_rows);
  triax_factored_plan_destroy(plan);
  plan = NULL;
  CHECK(triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, N, &l, NULL, 0, NULL, 2) ==
        TRIAX_SUCCESS, "create cpu_cr: %s", triax_last_error());
  CHECK(triax_factored_plan_query(plan, &p) == TRIAX_SUCCESS && p.algorithm == 2, "cpu_cr: %d",
        p.algorithm);
  triax_factored_plan_destroy(plan);

  /* Four groups along dimension 1 (two systems each): group g's matrix is g + 1 times Pade's
   * diagonals, which solve to x / (g + 1); checked against the one-matrix plan. */
  static double ga[N * 4], gb[N * 4], gc[N * 4], d[N * 8], x1[N * 8], xg[N * 8];
  for (int g = 0; g < 4; ++g) {
    for (int i = 0; i < N; ++i) ga[i + N * g] = (g + 1) * a[i], gb[i + N * g] = (g + 1) * b[i], gc[i + N * g] = (g + 1) * c[i];
  }
  for (int k = 0; k < N * 8; ++k) d[k] = sin(0.1 * k);
  /* d as N x 2 x 4: the matrix varies along dimension 2 (stride N) and is shared along 1. */
  const int64_t grouped[3] = {N, 2, 4};
  triax_layout lg, lc;
  triax_layout_packed(&lg, 3, grouped);
  lc = lg;
  lc.strides[1] = 0, lc.strides[2] = N;
  CHECK(triax_factored_plan_create_groups_d(&plan, TRIAX_BACKEND_CPU, ga, gb, gc, &lc, &lg, NULL, 0,
                                            NULL, 0) == TRIAX_SUCCESS, "groups: %s", triax_last_error());
  CHECK(triax_factored_plan_query(plan, &p) == TRIAX_SUCCESS && p.group_count == 4,
        "group count %lld", (long long)p.group_count);
  CHECK(triax_factored_solve_d(plan, d, xg, NULL) == TRIAX_SUCCESS, "groups solve: %s",
        triax_last_error());
  triax_factored_plan_destroy(plan);
  plan = NULL;
  triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, N, &l, NULL, 0, NULL, 0);
  CHECK(triax_factored_solve_d(plan, d, x1, NULL) == TRIAX_SUCCESS, "solve: %s", triax_last_error());
  triax_factored_plan_destroy(plan);
  int bad = 0;
  for (int k = 0; k < N * 8; ++k) bad += !(fabs(xg[k] * (k / (2 * N) + 1) - x1[k]) < 1e-13);
  CHECK(bad == 0, "groups: %d wrong", bad);
}

/* Each bad argument: TRIAX_INVALID_ARGUMENT, its name and value in the message, nothing written
 * (outputs keep their poison; a failed create leaves *plan NULL). */
static void expect_error(triax_status got, const char* needle, const char* what) {
  CHECK(got == TRIAX_INVALID_ARGUMENT, "%s accepted (status %d)", what, (int)got);
  CHECK(strstr(triax_last_error(), needle) != NULL, "%s: message '%s' lacks '%s'", what,
        triax_last_error(), needle);
}

static void check_errors(void) {
  double a[NY], b[NY], c[NY], d[DSIZE], x[XSIZE], d0[DSIZE];
  float f[DSIZE], fx[XSIZE];
  int info[NX];
  make_matrix(PADE, NY, 1u, a, b, c);
  for (int k = 0; k < DSIZE; ++k) d[k] = d0[k] = 0.25 * (k % 9), f[k] = 1.0f;
  for (int k = 0; k < XSIZE; ++k) x[k] = -7.0, fx[k] = -7.0f;
  for (int i = 0; i < NX; ++i) info[i] = -3;
  triax_factored_plan* bad = (triax_factored_plan*)&bad;
  const triax_options solver_algorithm = {1, 0, NULL, 0}, wrong_algorithm = {99, 0, NULL, 0};
  triax_layout rank9 = LD;
  rank9.rank = 9;
  const triax_layout* L = &LD;
#define CREATE(...) triax_factored_plan_create_d(&bad, __VA_ARGS__)
  expect_error(triax_factored_plan_create_d(NULL, TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, NULL, 0),
               "triax_factored_plan_create: plan is null", "null plan");
  expect_error(CREATE((triax_backend)7, a, b, c, NY, L, &LX, 1, NULL, 0), "backend = 7", "backend 7");
  CHECK(bad == NULL, "a failed create left a plan");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, NULL, &LX, 1, NULL, 0), "d_layout is null",
               "null d_layout");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &rank9, 1, NULL, 0), "x_layout->rank = 9",
               "rank 9");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 2, NULL, 0), "axis = 2", "axis 2");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY - 1, L, &LX, 1, NULL, 0), "n = 36", "n 36");
  expect_error(CREATE(TRIAX_BACKEND_CPU, NULL, b, c, NY, L, &LX, 1, NULL, 0), "pointer a is null",
               "null a");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, &wrong_algorithm, 0),
               "options->algorithm = 99", "options->algorithm 99");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, &solver_algorithm, 0),
               "options.algorithm = ", "a Solver algorithm");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, NULL, 17), "factored_algorithm = 17",
               "factored_algorithm 17");
  expect_error(CREATE(TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, NULL, 3),
               "algorithm = cuda_thread_thomas does not run on the cpu", "a cuda algorithm on cpu");
  expect_error(triax_factored_plan_create_groups_d(&bad, TRIAX_BACKEND_CPU, a, b, c, NULL, L, &LX, 1,
                                                   NULL, 0), "coefficients is null", "null coefficients");
  CHECK(bad == NULL, "a failed create left a plan");
#undef CREATE

  triax_factored_plan* plan = NULL;
  const triax_options checked = {0, 1, NULL, 0};
  CHECK(triax_factored_plan_create_d(&plan, TRIAX_BACKEND_CPU, a, b, c, NY, L, &LX, 1, &checked, 0) ==
        TRIAX_SUCCESS, "create: %s", triax_last_error());
  if (plan == NULL) return;
  triax_stencil_d st;
  triax_stencil_f stf;
  memset(&st, 0, sizeof(st));
  memset(&stf, 0, sizeof(stf));
  expect_error(triax_factored_solve_d(NULL, d, x, info), "triax_factored_solve: plan is null", "null plan");
  expect_error(triax_factored_solve_d(plan, NULL, x, info), "pointer d is null", "null d");
  expect_error(triax_factored_solve_d(plan, d, NULL, info), "pointer x is null", "null x");
  expect_error(triax_factored_solve_increment_d(plan, d, NULL, info), "pointer u is null", "null u");
  expect_error(triax_factored_solve_d(plan, d, (double*)((char*)x + 1), info), "not aligned",
               "misaligned x");
  expect_error(triax_factored_solve_d(plan, d, d + 1, info), "overlaps", "x over d");
  expect_error(triax_factored_solve_d(plan, d, x, NULL), "info is null", "checked without info");
  expect_error(triax_factored_solve_stencil_d(plan, NULL, d, x, info), "stencil is null",
               "null stencil");
  expect_error(triax_factored_solve_stencil_d(plan, &st, NULL, x, info), "pointer f is null", "null f");
  expect_error(triax_factored_solve_stencil_d(plan, &st, d, d + 3, info), "x shares elements with f",
               "x over f");
  expect_error(triax_factored_solve_f(plan, f, fx, info), "other precision", "float on double");
  expect_error(triax_factored_solve_stencil_f(plan, &stf, f, fx, info), "other precision",
               "float stencil on double");
  expect_error(triax_factored_solve_in_place_f(plan, f, info), "other precision", "float in place");
  expect_error(triax_factored_plan_query(plan, NULL), "properties is null", "null properties");
  expect_error(triax_factored_plan_query(NULL, NULL), "triax_factored_plan_query: plan is null",
               "query of null");
  for (int k = 0; k < DSIZE; ++k) CHECK(d[k] == d0[k] && f[k] == 1.0f, "d[%d] written", k);
  for (int k = 0; k < XSIZE; ++k) CHECK(x[k] == -7.0 && fx[k] == -7.0f, "x[%d] written", k);
  for (int i = 0; i < NX; ++i) CHECK(info[i] == -3, "info[%d] written", i);
  /* A good call clears the message. */
  CHECK(triax_factored_solve_d(plan, d, x, info) == TRIAX_SUCCESS, "solve: %s", triax_last_error());
  CHECK(strcmp(triax_last_error(), "") == 0, "message after success: %s", triax_last_error());
  triax_factored_plan_destroy(plan);
  triax_factored_plan_destroy(NULL);
  CHECK(triax_factored_plan_system_count(NULL) == 0 && triax_factored_plan_fuses_stencil(NULL) == 0,
        "queries of NULL");
}

int main(void) {
  make_layouts();
  check_solves_d(TRIAX_BACKEND_CPU);
  check_solves_f(TRIAX_BACKEND_CPU);
  check_solves_d(TRIAX_BACKEND_REFERENCE);
  check_solves_f(TRIAX_BACKEND_REFERENCE);
  check_checked_mode();
  check_properties();
  check_errors();
  if (failures == 0) printf("capi_factored: all checks passed\n");
  else printf("capi_factored: %d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
