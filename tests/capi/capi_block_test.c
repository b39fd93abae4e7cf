/* The block C API from C: the three named layouts, both precisions, the three solve modes and
 * checked mode on the host backends, each solution checked by its residual in every block row;
 * errors reported through status codes and triax_last_error() with nothing written. Prints each
 * failure and returns non-zero if there was one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "triax/triax.h"

/* A 5 x 7 grid of 3 x 3 blocks; systems along grid axis 1 (5 systems of 7 block rows). */
enum { M = 3, G0 = 5, G1 = 7, AXIS = 1, POINTS = G0 * G1 };
static const int64_t grid[2] = {G0, G1};

static int64_t block_at(const triax_layout* l, int r, int c, int g0, int g1) {
  return l->offset + r * l->strides[0] + c * l->strides[1] + g0 * l->strides[2] +
         g1 * l->strides[3];
}
static int64_t vector_at(const triax_layout* l, int k, int g0, int g1) {
  return l->offset + k * l->strides[0] + g0 * l->strides[1] + g1 * l->strides[2];
}

/* Block diagonally dominant blocks and a right-hand side, from a fixed pseudo-random sequence. */
static unsigned seed = 12345u;
static double uniform(void) {
  seed = seed * 1103515245u + 12345u;
  return ((seed >> 8) & 0xffff) / 32768.0 - 1.0; /* [-1, 1) */
}
static void fill(const triax_block_layouts* l, double* a, double* b, double* c, double* d) {
  for (int g0 = 0; g0 < G0; ++g0) {
    for (int g1 = 0; g1 < G1; ++g1) {
      for (int r = 0; r < M; ++r) {
        for (int k = 0; k < M; ++k) {
          a[block_at(&l->a, r, k, g0, g1)] = uniform();
          c[block_at(&l->c, r, k, g0, g1)] = uniform();
          b[block_at(&l->b, r, k, g0, g1)] = r == k ? 3.0 * M + 1.0 + uniform() : uniform();
        }
        d[vector_at(&l->d, r, g0, g1)] = uniform();
      }
    }
  }
}

/* The largest |A u[i-1] + B u[i] + C u[i+1] - scale d| over every system and block row, with u
 * read through layout lu. */
static double residual(const triax_block_layouts* l, const double* a, const double* b,
                       const double* c, const double* d, const double* u, const triax_layout* lu,
                       double scale) {
  double worst = 0;
  for (int g0 = 0; g0 < G0; ++g0) {
    for (int i = 0; i < G1; ++i) {
      for (int r = 0; r < M; ++r) {
        double sum = -scale * d[vector_at(&l->d, r, g0, i)];
        for (int k = 0; k < M; ++k) {
          sum += b[block_at(&l->b, r, k, g0, i)] * u[vector_at(lu, k, g0, i)];
          if (i > 0) sum += a[block_at(&l->a, r, k, g0, i)] * u[vector_at(lu, k, g0, i - 1)];
          if (i < G1 - 1) sum += c[block_at(&l->c, r, k, g0, i)] * u[vector_at(lu, k, g0, i + 1)];
        }
        if (!(fabs(sum) <= worst)) worst = fabs(sum); /* NaN makes worst NaN */
      }
    }
  }
  return worst;
}

static int64_t span_of(const triax_layout* l) {
  int64_t last = l->offset;
  for (int k = 0; k < l->rank; ++k) last += (l->extents[k] - 1) * l->strides[k];
  return last + 1;
}

static void check_layout(const char* name, const triax_block_layouts* l) {
  const int64_t nb = span_of(&l->a), nv = span_of(&l->d);
  double* a = calloc(nb, sizeof(double));
  double* b = calloc(nb, sizeof(double));
  double* c = calloc(nb, sizeof(double));
  double* d = calloc(nv, sizeof(double));
  double* x = calloc(nv, sizeof(double));
  float *af = calloc(nb, sizeof(float)), *bf = calloc(nb, sizeof(float));
  float *cf = calloc(nb, sizeof(float)), *df = calloc(nv, sizeof(float));
  double* xf = calloc(nv, sizeof(double));
  fill(l, a, b, c, d);
  const triax_backend backends[2] = {TRIAX_BACKEND_REFERENCE, TRIAX_BACKEND_CPU};
  for (int k = 0; k < 2; ++k) {
    triax_block_plan* plan = NULL;
    triax_status s = triax_block_plan_create_d(&plan, backends[k], M, l, AXIS, NULL, 0);
    CHECK(s == TRIAX_SUCCESS, "%s: create_d: %s", name, triax_last_error());
    if (s != TRIAX_SUCCESS) continue;
    CHECK(triax_block_plan_system_count(plan) == G0, "%s: system count", name);
    for (int64_t e = 0; e < nv; ++e) x[e] = NAN;
    s = triax_block_solve_d(plan, a, b, c, d, x, NULL);
    CHECK(s == TRIAX_SUCCESS && residual(l, a, b, c, d, x, &l->x, 1) < 1e-12,
          "%s backend %d: solve residual %g", name, k, residual(l, a, b, c, d, x, &l->x, 1));
    s = triax_block_solve_increment_d(plan, a, b, c, d, x, NULL); /* x = 2 u */
    CHECK(s == TRIAX_SUCCESS && residual(l, a, b, c, d, x, &l->x, 2) < 1e-12,
          "%s backend %d: increment residual %g", name, k, residual(l, a, b, c, d, x, &l->x, 2));
    for (int64_t e = 0; e < nv; ++e) x[e] = d[e];
    s = triax_block_solve_in_place_d(plan, a, b, c, x, NULL);
    CHECK(s == TRIAX_SUCCESS && residual(l, a, b, c, d, x, &l->d, 1) < 1e-12,
          "%s backend %d: in-place residual %g", name, k, residual(l, a, b, c, d, x, &l->d, 1));
    /* The other precision's entry point refuses the plan, writing nothing. */
    s = triax_block_solve_f(plan, af, bf, cf, df, df, NULL);
    CHECK(s == TRIAX_INVALID_ARGUMENT && strstr(triax_last_error(), "precision"),
          "%s: precision mismatch: %d %s", name, (int)s, triax_last_error());
    triax_block_plan_destroy(plan);

    /* float: the same systems, residual in double against the float solution. */
    for (int64_t e = 0; e < nb; ++e) {
      af[e] = (float)a[e];
      bf[e] = (float)b[e];
      cf[e] = (float)c[e];
    }
    for (int64_t e = 0; e < nv; ++e) df[e] = (float)d[e];
    triax_block_plan* pf = NULL;
    s = triax_block_plan_create_f(&pf, backends[k], M, l, AXIS, NULL, 0);
    CHECK(s == TRIAX_SUCCESS, "%s: create_f: %s", name, triax_last_error());
    if (s == TRIAX_SUCCESS) {
      s = triax_block_solve_in_place_f(pf, af, bf, cf, df, NULL);
      for (int64_t e = 0; e < nv; ++e) xf[e] = df[e];
      CHECK(s == TRIAX_SUCCESS && residual(l, a, b, c, d, xf, &l->d, 1) < 1e-5,
            "%s backend %d: float residual %g", name, k, residual(l, a, b, c, d, xf, &l->d, 1));
      triax_block_plan_destroy(pf);
    }
  }
  free(a), free(b), free(c), free(d), free(x), free(af), free(bf), free(cf), free(df), free(xf);
}

static void check_checked_and_errors(void) {
  triax_block_layouts l;
  CHECK(triax_block_layouts_array_of_blocks(&l, M, 2, grid) == TRIAX_SUCCESS, "layouts");
  const int64_t nb = span_of(&l.a), nv = span_of(&l.d);
  double* a = calloc(nb, sizeof(double));
  double* b = calloc(nb, sizeof(double));
  double* c = calloc(nb, sizeof(double));
  double* d = calloc(nv, sizeof(double));
  double* x = calloc(nv, sizeof(double));
  fill(&l, a, b, c, d);
  d[vector_at(&l.d, 1, 2, 4)] = NAN; /* system 2 (grid index 2): block row 4 */
  triax_options opt = {0, 1, NULL, 0};
  triax_block_plan* plan = NULL;
  CHECK(triax_block_plan_create_d(&plan, TRIAX_BACKEND_CPU, M, &l, AXIS, &opt, 0) == TRIAX_SUCCESS,
        "checked create: %s", triax_last_error());
  int info[G0];
  for (int s = 0; s < G0; ++s) info[s] = -7;
  CHECK(triax_block_solve_d(plan, a, b, c, d, x, info) == TRIAX_SUCCESS, "checked solve: %s",
        triax_last_error());
  for (int s = 0; s < G0; ++s) {
    CHECK(info[s] == (s == 2 ? 5 : 0), "info[%d] = %d", s, info[s]);
  }

  /* Errors: each names its argument, and a refused solve writes nothing. */
  for (int64_t e = 0; e < nv; ++e) x[e] = 42.0;
  CHECK(triax_block_solve_d(plan, a, b, c, d, x, NULL) == TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "info"),
        "checked mode without info: %s", triax_last_error());
  CHECK(triax_block_solve_d(plan, a, NULL, c, d, x, info) == TRIAX_INVALID_ARGUMENT,
        "null b accepted");
  int untouched = 1;
  for (int64_t e = 0; e < nv; ++e) untouched &= x[e] == 42.0;
  CHECK(untouched, "a refused solve wrote x");
  triax_block_plan_destroy(plan);

  triax_block_plan* bad = NULL;
  CHECK(triax_block_plan_create_d(&bad, TRIAX_BACKEND_CPU, M, &l, AXIS, NULL, 99) ==
                TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "block_algorithm = 99") && bad == NULL,
        "block_algorithm 99: %s", triax_last_error());
  CHECK(triax_block_plan_create_d(&bad, (triax_backend)7, M, &l, AXIS, NULL, 0) ==
                TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "backend = 7"),
        "backend 7: %s", triax_last_error());
  CHECK(triax_block_plan_create_d(&bad, TRIAX_BACKEND_CPU, M, &l, 2, NULL, 0) ==
                TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "axis"),
        "axis 2: %s", triax_last_error());
  CHECK(triax_block_plan_create_d(&bad, TRIAX_BACKEND_CPU, M, NULL, AXIS, NULL, 0) ==
                TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "layouts is null"),
        "null layouts: %s", triax_last_error());
  CHECK(triax_block_layouts_array_of_blocks(&l, M, 7, grid) == TRIAX_INVALID_ARGUMENT &&
            strstr(triax_last_error(), "grid_rank = 7"),
        "grid rank 7: %s", triax_last_error());
  CHECK(triax_block_solve_d(NULL, a, b, c, d, x, NULL) == TRIAX_INVALID_ARGUMENT,
        "null plan accepted");
  free(a), free(b), free(c), free(d), free(x);
}

int main(void) {
  triax_block_layouts l;
  CHECK(triax_block_layouts_array_of_blocks(&l, M, 2, grid) == TRIAX_SUCCESS, "%s",
        triax_last_error());
  check_layout("array_of_blocks", &l);
  CHECK(triax_block_layouts_structure_of_arrays(&l, M, 2, grid) == TRIAX_SUCCESS, "%s",
        triax_last_error());
  check_layout("structure_of_arrays", &l);
  CHECK(triax_block_layouts_interleaved(&l, M, 2, grid, AXIS) == TRIAX_SUCCESS, "%s",
        triax_last_error());
  check_layout("interleaved", &l);
  check_checked_and_errors();
  if (failures == 0) printf("capi_block: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
