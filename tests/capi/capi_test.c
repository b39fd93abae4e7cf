/* The C API from C: plans in both precisions, the three solve modes against a Thomas written
 * here, and errors reported through status codes and triax_last_error(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triax/triax.h"

static int failures = 0;
#define CHECK(cond, ...)                     \
  do {                                       \
    if (!(cond)) {                           \
      printf("FAILED %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                   \
      printf("\n");                          \
      ++failures;                            \
    }                                        \
  } while (0)

enum { NX = 5, NY = 33, N = NX * NY };

/* Thomas along y (stride NX) for system column i, in double, for the expected answer. */
static void thomas_column(const double* a, const double* b, const double* c, const double* d,
                          double* x, int i) {
  double cp[NY], dp[NY];
  for (int r = 0; r < NY; ++r) {
    const int o = r * NX + i;
    const double m = b[o] - (r > 0 ? a[o] * cp[r - 1] : 0);
    cp[r] = (r + 1 < NY ? c[o] : 0) / m;
    dp[r] = (d[o] - (r > 0 ? a[o] * dp[r - 1] : 0)) / m;
  }
  x[(NY - 1) * NX + i] = dp[NY - 1];
  for (int r = NY - 2; r >= 0; --r) {
    dp[r] -= cp[r] * dp[r + 1];
    x[r * NX + i] = dp[r];
  }
}

int main(void) {
  double a[N], b[N], c[N], d[N], x[N], u[N], want[N];
  float af[N], bf[N], cf[N], df[N];
  unsigned seed = 7;
  for (int k = 0; k < N; ++k) {
    seed = seed * 1103515245u + 12345u;
    a[k] = (double)(seed % 1000) / 1000.0 - 0.5;
    c[k] = (double)((seed >> 10) % 1000) / 1000.0 - 0.5;
    b[k] = 3.0 + (double)((seed >> 20) % 100) / 100.0;
    d[k] = (double)((seed >> 5) % 1000) / 500.0 - 1.0;
    af[k] = (float)a[k]; bf[k] = (float)b[k]; cf[k] = (float)c[k]; df[k] = (float)d[k];
    u[k] = 1.0;
  }
  for (int i = 0; i < NX; ++i) thomas_column(a, b, c, d, want, i);

  const int64_t extents[2] = {NX, NY};
  triax_layout layout;
  CHECK(triax_layout_packed(&layout, 2, extents) == TRIAX_SUCCESS, "layout: %s", triax_last_error());

  triax_plan* plan = NULL;
  CHECK(triax_plan_create_d(&plan, TRIAX_BACKEND_CPU, &layout, 1, NULL) == TRIAX_SUCCESS,
        "create: %s", triax_last_error());
  CHECK(triax_plan_system_count(plan) == NX, "system count %lld", (long long)triax_plan_system_count(plan));
  CHECK(triax_solve_d(plan, a, b, c, d, x, NULL) == TRIAX_SUCCESS, "solve: %s", triax_last_error());
  for (int k = 0; k < N; ++k) CHECK(fabs(x[k] - want[k]) < 1e-13, "x[%d] = %g, want %g", k, x[k], want[k]);
  CHECK(triax_solve_increment_d(plan, a, b, c, d, u, NULL) == TRIAX_SUCCESS, "increment: %s", triax_last_error());
  for (int k = 0; k < N; ++k) CHECK(fabs(u[k] - 1.0 - want[k]) < 1e-13, "u[%d] = %g", k, u[k]);
  double dd[N];
  memcpy(dd, d, sizeof dd);
  CHECK(triax_solve_in_place_d(plan, a, b, c, dd, NULL) == TRIAX_SUCCESS, "in place: %s", triax_last_error());
  for (int k = 0; k < N; ++k) CHECK(fabs(dd[k] - want[k]) < 1e-13, "d[%d] = %g", k, dd[k]);

  /* Errors: a null pointer, the wrong precision, an axis out of range. Nothing is written. */
  memcpy(x, want, sizeof x);
  CHECK(triax_solve_d(plan, NULL, b, c, d, x, NULL) == TRIAX_INVALID_ARGUMENT, "null a accepted");
  CHECK(strstr(triax_last_error(), "pointer a is null") != NULL, "message: %s", triax_last_error());
  CHECK(triax_solve_f(plan, af, bf, cf, df, df, NULL) == TRIAX_INVALID_ARGUMENT, "float solve on a double plan");
  CHECK(strstr(triax_last_error(), "precision") != NULL, "message: %s", triax_last_error());
  for (int k = 0; k < N; ++k) CHECK(x[k] == want[k], "x written by a rejected call");
  triax_plan* bad = NULL;
  CHECK(triax_plan_create_d(&bad, TRIAX_BACKEND_CPU, &layout, 5, NULL) == TRIAX_INVALID_ARGUMENT, "axis 5 accepted");
  CHECK(strstr(triax_last_error(), "axis = 5") != NULL, "message: %s", triax_last_error());
  CHECK(bad == NULL, "a failed create left a plan");
  triax_plan_destroy(plan);

  /* Float, checked mode. */
  triax_options options = {0, 1, NULL, 0};
  CHECK(triax_plan_create_f(&plan, TRIAX_BACKEND_CPU, &layout, 1, &options) == TRIAX_SUCCESS, "create f: %s", triax_last_error());
  int info[NX];
  bf[3 * NX + 2] = 0.0f; /* system 2 breaks down at row 3 if its pivot there vanishes... */
  af[3 * NX + 2] = 0.0f; /* ...which it does when a is zero too */
  CHECK(triax_solve_in_place_f(plan, af, bf, cf, df, info) == TRIAX_SUCCESS, "solve f: %s", triax_last_error());
  for (int i = 0; i < NX; ++i) CHECK(info[i] == (i == 2 ? 4 : 0), "info[%d] = %d", i, info[i]);
  for (int k = 0; k < N; ++k) {
    if (k % NX != 2) CHECK(fabsf(df[k] - (float)want[k]) < 1e-5f, "df[%d] = %g, want %g", k, df[k], want[k]);
  }
  triax_plan_destroy(plan);
  triax_plan_destroy(NULL);

  printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures == 0 ? 0 : 1);
  return failures == 0 ? 0 : 1;
}
