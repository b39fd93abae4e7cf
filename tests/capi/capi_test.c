/* The C API from C: plans in both precisions on both host backends, the three solve modes
 * against a Thomas written here, checked mode, errors reported through status codes and
 * triax_last_error() (with nothing written), and the example of triax.h's comment. Prints each
 * failure and returns non-zero if there was one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "triax/triax.h"

/* Systems along y of an NX x NY array: NX systems of NY rows at stride NX. */
enum { NX = 5, NY = 33, N = NX * NY };

/* Thomas in double for the system whose row r is at o + r * stride; n <= 64. */
static void thomas(const double* a, const double* b, const double* c, const double* d, double* x,
                   int n, int o, int stride) {
  double cp[64], dp[64];
  if (n > 64) abort();
  for (int r = 0; r < n; ++r) {
    const int k = o + r * stride;
    const double m = b[k] - (r > 0 ? a[k] * cp[r - 1] : 0);
    cp[r] = (r + 1 < n ? c[k] : 0) / m;
    dp[r] = (d[k] - (r > 0 ? a[k] * dp[r - 1] : 0)) / m;
  }
  x[o + (n - 1) * stride] = dp[n - 1];
  for (int r = n - 2; r >= 0; --r) {
    dp[r] -= cp[r] * dp[r + 1];
    x[o + r * stride] = dp[r];
  }
}

/* Random diagonally dominant systems (a[0] and c[n-1] hold garbage: they must be ignored) and
 * the answer of the Thomas above. */
static double A[N], B[N], C[N], D[N], WANT[N];
static void make_problem(void) {
  unsigned seed = 7;
  for (int k = 0; k < N; ++k) {
    seed = seed * 1103515245u + 12345u;
    A[k] = (double)(seed % 1000) / 1000.0 - 0.5;
    C[k] = (double)((seed >> 10) % 1000) / 1000.0 - 0.5;
    B[k] = 3.0 + (double)((seed >> 20) % 100) / 100.0;
    D[k] = (double)((seed >> 5) % 1000) / 500.0 - 1.0;
  }
  for (int k = 0; k < NX; ++k) A[k] = 1e30, C[(NY - 1) * NX + k] = -1e30;
  for (int i = 0; i < NX; ++i) thomas(A, B, C, D, WANT, NY, i, NX);
}

/* The three modes on one precision: S is the suffix of the C functions (d or f). The
 * tolerance is 64 epsilon times the condition estimate (at most 3 here) and |x| (below 1). */
#define DEFINE_CHECK_MODES(T, S, EPS)                                                           \
  static void check_modes_##S(triax_backend backend, const triax_layout* layout) {             \
    T a[N], b[N], c[N], d[N], x[N], u[N];                                                      \
    const double tol = 64 * 3 * (EPS);                                                          \
    for (int k = 0; k < N; ++k) {                                                              \
      a[k] = (T)A[k], b[k] = (T)B[k], c[k] = (T)C[k], d[k] = (T)D[k], u[k] = (T)1;             \
    }                                                                                          \
    triax_plan* plan = NULL;                                                                   \
    CHECK(triax_plan_create_##S(&plan, backend, layout, 1, NULL) == TRIAX_SUCCESS,             \
          #S " create: %s", triax_last_error());                                               \
    if (plan == NULL) return;                                                                  \
    CHECK(triax_plan_system_count(plan) == NX, "system count %lld",                           \
          (long long)triax_plan_system_count(plan));                                          \
    CHECK(triax_solve_##S(plan, a, b, c, d, x, NULL) == TRIAX_SUCCESS, #S " solve: %s",        \
          triax_last_error());                                                                 \
    for (int k = 0; k < N; ++k) {                                                              \
      CHECK(fabs((double)x[k] - WANT[k]) < tol, #S " x[%d] = %g, want %g", k, (double)x[k],    \
            WANT[k]);                                                                          \
      CHECK(d[k] == (T)D[k], #S " d[%d] written by solve", k);                                 \
    }                                                                                          \
    CHECK(triax_solve_increment_##S(plan, a, b, c, d, u, NULL) == TRIAX_SUCCESS,               \
          #S " increment: %s", triax_last_error());                                            \
    for (int k = 0; k < N; ++k) {                                                              \
      CHECK(fabs((double)u[k] - 1.0 - WANT[k]) < 2 * tol, #S " u[%d] = %g", k, (double)u[k]);   \
    }                                                                                          \
    CHECK(triax_solve_in_place_##S(plan, a, b, c, d, NULL) == TRIAX_SUCCESS,                   \
          #S " in place: %s", triax_last_error());                                             \
    for (int k = 0; k < N; ++k) {                                                              \
      CHECK(fabs((double)d[k] - WANT[k]) < tol, #S " d[%d] = %g, want %g", k, (double)d[k],    \
            WANT[k]);                                                                          \
    }                                                                                          \
    triax_plan_destroy(plan);                                                                  \
  }
DEFINE_CHECK_MODES(double, d, 2.220446049250313e-16)
DEFINE_CHECK_MODES(float, f, 1.1920929e-07)

/* Bad calls return TRIAX_INVALID_ARGUMENT, name the argument and its value in
 * triax_last_error(), and write nothing. */
static void check_errors(const triax_layout* layout) {
  double x[N], d[N];
  float f[N];
  for (int k = 0; k < N; ++k) x[k] = -7.0, d[k] = D[k], f[k] = 1.0f;
  triax_plan* plan = NULL;
  CHECK(triax_plan_create_d(&plan, TRIAX_BACKEND_CPU, layout, 1, NULL) == TRIAX_SUCCESS,
        "create: %s", triax_last_error());
  if (plan == NULL) return;
  CHECK(triax_solve_d(plan, NULL, B, C, d, x, NULL) == TRIAX_INVALID_ARGUMENT, "null a accepted");
  CHECK(strstr(triax_last_error(), "pointer a is null") != NULL, "message: %s", triax_last_error());
  CHECK(triax_solve_increment_d(plan, A, B, C, d, NULL, NULL) == TRIAX_INVALID_ARGUMENT,
        "null u accepted");
  CHECK(strstr(triax_last_error(), "pointer u is null") != NULL, "message: %s", triax_last_error());
  CHECK(triax_solve_d(plan, A, B, C, d, (double*)((char*)x + 1), NULL) == TRIAX_INVALID_ARGUMENT,
        "misaligned x accepted");
  CHECK(strstr(triax_last_error(), "not aligned") != NULL, "message: %s", triax_last_error());
  CHECK(triax_solve_d(plan, A, B, C, d, (double*)A, NULL) == TRIAX_INVALID_ARGUMENT,
        "x overlapping a accepted");
  CHECK(strstr(triax_last_error(), "overlaps input a") != NULL, "message: %s", triax_last_error());
  CHECK(triax_solve_f(plan, f, f, f, f, f, NULL) == TRIAX_INVALID_ARGUMENT,
        "float solve on a double plan");
  CHECK(strstr(triax_last_error(), "precision") != NULL, "message: %s", triax_last_error());
  for (int k = 0; k < N; ++k) {
    CHECK(x[k] == -7.0 && d[k] == D[k] && f[k] == 1.0f, "element %d written by a rejected call", k);
  }
  /* A successful call clears the message. */
  CHECK(triax_solve_d(plan, A, B, C, d, x, NULL) == TRIAX_SUCCESS, "solve: %s", triax_last_error());
  CHECK(strcmp(triax_last_error(), "") == 0, "message after success: %s", triax_last_error());
  triax_plan_destroy(plan);

  triax_plan* bad = NULL;
  CHECK(triax_plan_create_d(&bad, TRIAX_BACKEND_CPU, layout, 5, NULL) == TRIAX_INVALID_ARGUMENT,
        "axis 5 accepted");
  CHECK(strstr(triax_last_error(), "axis = 5") != NULL, "message: %s", triax_last_error());
  CHECK(bad == NULL, "a failed create left a plan");
  CHECK(triax_plan_create_f(&bad, TRIAX_BACKEND_REFERENCE, layout, -1, NULL) ==
            TRIAX_INVALID_ARGUMENT, "axis -1 accepted");
  CHECK(strstr(triax_last_error(), "axis = -1") != NULL, "message: %s", triax_last_error());
  CHECK(triax_plan_create_d(NULL, TRIAX_BACKEND_CPU, layout, 0, NULL) == TRIAX_INVALID_ARGUMENT,
        "null plan accepted");
  CHECK(strstr(triax_last_error(), "plan is null") != NULL, "message: %s", triax_last_error());
  CHECK(triax_plan_create_d(&bad, (triax_backend)9, layout, 0, NULL) == TRIAX_INVALID_ARGUMENT,
        "backend 9 accepted");
  CHECK(strstr(triax_last_error(), "backend = 9") != NULL, "message: %s", triax_last_error());
  /* Any int is a defined triax_backend value (TRIAX_BACKEND_MAX_ENUM), so -1 is rejected too. */
  CHECK(triax_plan_create_d(&bad, (triax_backend)-1, layout, 0, NULL) == TRIAX_INVALID_ARGUMENT,
        "backend -1 accepted");
  CHECK(strstr(triax_last_error(), "backend = -1") != NULL, "message: %s", triax_last_error());

  const int64_t nine[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  triax_layout l9;
  CHECK(triax_layout_packed(&l9, 9, nine) == TRIAX_INVALID_ARGUMENT, "rank 9 accepted");
  CHECK(strstr(triax_last_error(), "rank") != NULL && strstr(triax_last_error(), "9") != NULL,
        "message: %s", triax_last_error());
  const int64_t negative[2] = {4, -3};
  CHECK(triax_layout_packed(&l9, 2, negative) == TRIAX_INVALID_ARGUMENT, "extent -3 accepted");
  CHECK(strstr(triax_last_error(), "-3") != NULL, "message: %s", triax_last_error());
}

/* Checked mode in float: system 2 breaks down at row 3 (a zero pivot, since a and b vanish
 * there); every other system is solved and reports 0. */
static void check_checked_mode(const triax_layout* layout) {
  float a[N], b[N], c[N], d[N];
  for (int k = 0; k < N; ++k) a[k] = (float)A[k], b[k] = (float)B[k], c[k] = (float)C[k], d[k] = (float)D[k];
  a[3 * NX + 2] = 0.0f;
  b[3 * NX + 2] = 0.0f;
  const triax_options options = {0, 1, NULL, 0};
  for (int backend = TRIAX_BACKEND_REFERENCE; backend <= TRIAX_BACKEND_CPU; ++backend) {
    float x[N];
    int info[NX];
    triax_plan* plan = NULL;
    CHECK(triax_plan_create_f(&plan, (triax_backend)backend, layout, 1, &options) == TRIAX_SUCCESS,
          "create f: %s", triax_last_error());
    if (plan == NULL) continue;
    CHECK(triax_solve_f(plan, a, b, c, d, x, NULL) == TRIAX_INVALID_ARGUMENT,
          "checked solve without info accepted");
    CHECK(triax_solve_f(plan, a, b, c, d, x, info) == TRIAX_SUCCESS, "solve f: %s",
          triax_last_error());
    for (int i = 0; i < NX; ++i) CHECK(info[i] == (i == 2 ? 4 : 0), "info[%d] = %d", i, info[i]);
    for (int k = 0; k < N; ++k) {
      if (k % NX != 2) CHECK(fabs(x[k] - WANT[k]) < 1e-5, "x[%d] = %g, want %g", k, x[k], WANT[k]);
    }
    triax_plan_destroy(plan);
  }
  triax_plan_destroy(NULL);
}

/* The example of triax.h's comment, on a 64^3 grid of diagonally dominant systems. */
static void doc_example(double* a, double* b, double* c, double* d) {
  int64_t extents[3] = {64, 64, 64};
  triax_layout l;
  triax_layout_packed(&l, 3, extents);
  triax_plan* plan = NULL;
  if (triax_plan_create_d(&plan, TRIAX_BACKEND_CPU, &l, 1, NULL) != TRIAX_SUCCESS)
    fprintf(stderr, "%s\n", triax_last_error());
  triax_solve_in_place_d(plan, a, b, c, d, NULL);
  triax_plan_destroy(plan);
}

static void check_doc_example(void) {
  enum { M = 64 * 64 * 64 };
  double* buf = malloc(6 * sizeof(double) * M);
  if (buf == NULL) {
    CHECK(0, "out of memory");
    return;
  }
  double *a = buf, *b = a + M, *c = b + M, *d = c + M, *want = d + M, *d0 = want + M;
  for (int k = 0; k < M; ++k) {
    a[k] = 0.5 * sin(k), b[k] = 3 + sin(0.5 * k), c[k] = 0.5 * cos(k), d[k] = cos(0.3 * k);
  }
  memcpy(d0, d, sizeof(double) * M);
  /* Systems along y: for each (x, z), rows at stride 64. */
  for (int z = 0; z < 64; ++z) {
    for (int i = 0; i < 64; ++i) thomas(a, b, c, d0, want, 64, z * 64 * 64 + i, 64);
  }
  doc_example(a, b, c, d);
  int bad = 0;
  for (int k = 0; k < M; ++k) bad += !(fabs(d[k] - want[k]) < 1e-13);
  CHECK(bad == 0, "doc example: %d wrong elements", bad);
  free(buf);
}

int main(void) {
  make_problem();
  const int64_t extents[2] = {NX, NY};
  triax_layout layout;
  CHECK(triax_layout_packed(&layout, 2, extents) == TRIAX_SUCCESS, "layout: %s", triax_last_error());
  check_modes_d(TRIAX_BACKEND_CPU, &layout);
  check_modes_f(TRIAX_BACKEND_CPU, &layout);
  check_modes_d(TRIAX_BACKEND_REFERENCE, &layout);
  check_modes_f(TRIAX_BACKEND_REFERENCE, &layout);
  check_errors(&layout);
  check_checked_mode(&layout);
  check_doc_example();
  if (failures == 0) printf("capi: all checks passed\n");
  else printf("capi: %d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
