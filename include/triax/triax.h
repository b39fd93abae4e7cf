/** @file triax.h
 * The C API of triax: plans for batches of tridiagonal systems along one axis of an N-D array.
 *
 * Each system is a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i], i = 0..n-1; a[0] and c[n-1] are
 * never read. Every call returns a triax_status; on failure nothing was written and
 * triax_last_error() returns a message naming the argument and its value (per thread).
 *
 * @code
 *   int64_t extents[3] = {64, 64, 64};
 *   triax_layout l;
 *   triax_layout_packed(&l, 3, extents);
 *   triax_plan* plan = NULL;
 *   if (triax_plan_create_d(&plan, TRIAX_BACKEND_CPU, &l, 1, NULL) != TRIAX_SUCCESS)
 *     fprintf(stderr, "%s\n", triax_last_error());
 *   triax_solve_in_place_d(plan, a, b, c, d, NULL);
 *   triax_plan_destroy(plan);
 * @endcode
 */
#ifndef TRIAX_TRIAX_H
#define TRIAX_TRIAX_H

#include <stdint.h>

#if defined(_WIN32)
#define TRIAX_C_API
#else
#define TRIAX_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. */
typedef enum triax_status {
  TRIAX_SUCCESS = 0,
  TRIAX_INVALID_ARGUMENT = 1, /**< bad input: nothing was written */
  TRIAX_NOT_COMPILED = 2,     /**< the backend was not built */
  TRIAX_CUDA_ERROR = 3,       /**< a CUDA or cuSPARSE call failed */
  TRIAX_MPI_ERROR = 4,        /**< an MPI or NCCL call failed */
  TRIAX_INTERNAL_ERROR = 5,   /**< anything else */
  TRIAX_OUT_OF_MEMORY = 6,    /**< a plan's workspace could not be allocated */
  /** Not a status: makes every int value representable (C++ may not assume less). */
  TRIAX_STATUS_MAX_ENUM = 0x7fffffff
} triax_status;

typedef enum triax_backend {
  TRIAX_BACKEND_REFERENCE = 0,
  TRIAX_BACKEND_CPU = 1,
  TRIAX_BACKEND_CUDA = 2,
  /** Not backends: with these two every int is a value of the type, so that an out-of-range
   *  value passed from C is a defined value that triax_plan_create rejects. */
  TRIAX_BACKEND_MIN_ENUM = -0x7fffffff - 1,
  TRIAX_BACKEND_MAX_ENUM = 0x7fffffff
} triax_backend;

/** One operand's layout: element (i0, .., i{rank-1}) is at base[offset + sum i_k stride_k]. */
typedef struct triax_layout {
  int rank;             /**< 1..8 */
  int64_t extents[8];   /**< dimension 0 fastest */
  int64_t strides[8];   /**< in elements; 0 broadcasts */
  int64_t offset;       /**< element offset of the first interior point */
} triax_layout;

/** Fills *layout with a packed layout. */
TRIAX_C_API triax_status triax_layout_packed(triax_layout* layout, int rank,
                                             const int64_t* extents);

/** Plan options; NULL means the defaults (automatic algorithm, unchecked, default stream). */
typedef struct triax_options {
  int algorithm;  /**< a value of triax::Algorithm, 0 = automatic */
  int checked;    /**< nonzero: every solve fills info[] (one int per system) */
  void* stream;   /**< cudaStream_t for the CUDA backend */
  int num_threads;/**< CPU threads, 0 = OpenMP default */
} triax_options;

typedef struct triax_plan triax_plan;

/** Creates a plan for double (_d) or float (_f) values: all five operands laid out as `layout`,
 *  systems along `axis`. */
TRIAX_C_API triax_status triax_plan_create_d(triax_plan** plan, triax_backend backend,
                                             const triax_layout* layout, int axis,
                                             const triax_options* options);
TRIAX_C_API triax_status triax_plan_create_f(triax_plan** plan, triax_backend backend,
                                             const triax_layout* layout, int axis,
                                             const triax_options* options);
/** Destroys a plan; NULL is ignored. */
TRIAX_C_API void triax_plan_destroy(triax_plan* plan);

/** Number of systems (the length of info in checked mode). */
TRIAX_C_API int64_t triax_plan_system_count(const triax_plan* plan);

/** Solves in place: d becomes x. info: NULL, or one int per system in checked mode. */
TRIAX_C_API triax_status triax_solve_in_place_d(triax_plan* plan, const double* a,
                                                const double* b, const double* c, double* d,
                                                int* info);
TRIAX_C_API triax_status triax_solve_in_place_f(triax_plan* plan, const float* a, const float* b,
                                                const float* c, float* d, int* info);
/** Solves into x; d is not modified. */
TRIAX_C_API triax_status triax_solve_d(triax_plan* plan, const double* a, const double* b,
                                       const double* c, const double* d, double* x, int* info);
TRIAX_C_API triax_status triax_solve_f(triax_plan* plan, const float* a, const float* b,
                                       const float* c, const float* d, float* x, int* info);
/** u += x. */
TRIAX_C_API triax_status triax_solve_increment_d(triax_plan* plan, const double* a,
                                                 const double* b, const double* c,
                                                 const double* d, double* u, int* info);
TRIAX_C_API triax_status triax_solve_increment_f(triax_plan* plan, const float* a,
                                                 const float* b, const float* c, const float* d,
                                                 float* u, int* info);

/* ---- Block tridiagonal systems (triax/block.hpp): M x M blocks A, B, C, vectors d, x. ---- */

/** The layouts of a block solve: blocks a, b, c of rank r + 2 (dimension 0 the row within a
 *  block, 1 the column, 2.. the grid) and vectors d, x of rank r + 1 (dimension 0 the component,
 *  1.. the grid), for a grid of rank r (1..6). */
typedef struct triax_block_layouts {
  triax_layout a, b, c, d, x;
} triax_block_layouts;

/** Fills *layouts with triax::BlockLayouts' packed layouts of a grid of `grid_rank` extents:
 *  each block contiguous and row-major, grid points in order (array of blocks); each block
 *  entry a full grid (structure of arrays); or array of blocks with grid axis `axis` outermost
 *  (interleaved: paper 000's GPU layout). */
TRIAX_C_API triax_status triax_block_layouts_array_of_blocks(triax_block_layouts* layouts, int m,
                                                             int grid_rank,
                                                             const int64_t* extents);
TRIAX_C_API triax_status triax_block_layouts_structure_of_arrays(triax_block_layouts* layouts,
                                                                 int m, int grid_rank,
                                                                 const int64_t* extents);
TRIAX_C_API triax_status triax_block_layouts_interleaved(triax_block_layouts* layouts, int m,
                                                         int grid_rank, const int64_t* extents,
                                                         int axis);

typedef struct triax_block_plan triax_block_plan;

/** Creates a block plan (triax::BlockSolver) for M x M blocks along grid axis `axis`.
 *  options->algorithm must be 0; `block_algorithm` is a value of triax::BlockAlgorithm
 *  (0 = the backend's choice). */
TRIAX_C_API triax_status triax_block_plan_create_d(triax_block_plan** plan, triax_backend backend,
                                                   int m, const triax_block_layouts* layouts,
                                                   int axis, const triax_options* options,
                                                   int block_algorithm);
TRIAX_C_API triax_status triax_block_plan_create_f(triax_block_plan** plan, triax_backend backend,
                                                   int m, const triax_block_layouts* layouts,
                                                   int axis, const triax_options* options,
                                                   int block_algorithm);
/** Destroys a block plan; NULL is ignored. */
TRIAX_C_API void triax_block_plan_destroy(triax_block_plan* plan);
/** Number of systems (the length of info in checked mode). */
TRIAX_C_API int64_t triax_block_plan_system_count(const triax_block_plan* plan);

/** The three solves of a block plan, as for scalar plans: d becomes u; u into x; u += x. */
TRIAX_C_API triax_status triax_block_solve_in_place_d(triax_block_plan* plan, const double* a,
                                                      const double* b, const double* c,
                                                      double* d, int* info);
TRIAX_C_API triax_status triax_block_solve_in_place_f(triax_block_plan* plan, const float* a,
                                                      const float* b, const float* c, float* d,
                                                      int* info);
TRIAX_C_API triax_status triax_block_solve_d(triax_block_plan* plan, const double* a,
                                             const double* b, const double* c, const double* d,
                                             double* x, int* info);
TRIAX_C_API triax_status triax_block_solve_f(triax_block_plan* plan, const float* a,
                                             const float* b, const float* c, const float* d,
                                             float* x, int* info);
TRIAX_C_API triax_status triax_block_solve_increment_d(triax_block_plan* plan, const double* a,
                                                       const double* b, const double* c,
                                                       const double* d, double* u, int* info);
TRIAX_C_API triax_status triax_block_solve_increment_f(triax_block_plan* plan, const float* a,
                                                       const float* b, const float* c,
                                                       const float* d, float* u, int* info);

/* ---- One matrix, many right-hand sides (triax/factored.hpp): the factored plan. ---- */

/** A banded operator B for triax_factored_solve_stencil_*: x = A^{-1} (B f), e.g. a compact
 *  finite difference (triax/stencil.hpp: the same weights, the same rows). Row i of B f along a
 *  system of n rows is sum_k interior[k+2] f[i+k] (k = -2..2) for 2 <= i <= n-3; row r = 0, 1 is
 *  sum_t first[r][t] f[t]; row n-1-r is sum_t last[r][t] f[n-1-t] (t = 0..4, taps counted
 *  inward from the edge). For n <= 3 a row takes the closure of its nearer edge (the first on a
 *  tie); taps past the line count as zero and are never read. Zero-initialise unused weights. */
typedef struct triax_stencil_d {
  double interior[5];
  double first[2][5];
  double last[2][5];
} triax_stencil_d;
typedef struct triax_stencil_f {
  float interior[5];
  float first[2][5];
  float last[2][5];
} triax_stencil_f;

typedef struct triax_factored_plan triax_factored_plan;

/** Creates a factored plan (triax::FactoredSolver): one matrix a, b, c of n rows (host memory,
 *  copied here; a[0] and c[n-1] are never read), factored once and shared by every system of d
 *  (laid out as d_layout) along `axis`; x (of triax_factored_solve_*, u of the increment) is laid
 *  out as x_layout (NULL: as d). options->algorithm must be 0; `factored_algorithm` is a value of
 *  triax::FactoredAlgorithm (0 = automatic, 1 cpu_thomas, 2 cpu_cr, 3 cuda_thread_thomas,
 *  4 cuda_block_cr_shared, 5 cuda_block_cr_global, 6 cuda_hybrid). On the CUDA backend d, x, f
 *  and info are device pointers and every solve runs on options->stream; a, b, c stay host
 *  memory. A zero or non-finite pivot is not an error here: see factor_info below. */
TRIAX_C_API triax_status triax_factored_plan_create_d(
    triax_factored_plan** plan, triax_backend backend, const double* a, const double* b,
    const double* c, int64_t n, const triax_layout* d_layout, const triax_layout* x_layout,
    int axis, const triax_options* options, int factored_algorithm);
TRIAX_C_API triax_status triax_factored_plan_create_f(
    triax_factored_plan** plan, triax_backend backend, const float* a, const float* b,
    const float* c, int64_t n, const triax_layout* d_layout, const triax_layout* x_layout,
    int axis, const triax_options* options, int factored_algorithm);
/** One matrix per group of systems: a, b, c laid out by `coefficients` over d's dimensions (n
 *  along the axis, any stride, 0 for constant diagonals; elsewhere d's extent, or 1 / stride 0 to
 *  share). Systems that differ only along shared dimensions use one matrix; at most 4096 groups
 *  (triax/factored.hpp, "One matrix per group of systems"). */
TRIAX_C_API triax_status triax_factored_plan_create_groups_d(
    triax_factored_plan** plan, triax_backend backend, const double* a, const double* b,
    const double* c, const triax_layout* coefficients, const triax_layout* d_layout,
    const triax_layout* x_layout, int axis, const triax_options* options,
    int factored_algorithm);
TRIAX_C_API triax_status triax_factored_plan_create_groups_f(
    triax_factored_plan** plan, triax_backend backend, const float* a, const float* b,
    const float* c, const triax_layout* coefficients, const triax_layout* d_layout,
    const triax_layout* x_layout, int axis, const triax_options* options,
    int factored_algorithm);
/** Destroys a factored plan; NULL is ignored. */
TRIAX_C_API void triax_factored_plan_destroy(triax_factored_plan* plan);

/** What a factored plan is (triax::FactoredSolver's queries of the same names). */
typedef struct triax_factored_plan_properties {
  int64_t system_length; /**< rows per system (n) */
  int64_t system_count;  /**< systems per solve: the length of info in checked mode */
  int64_t group_count;   /**< groups with a matrix of their own (1: one matrix) */
  int64_t stored_rows;   /**< factor rows (or CR coefficient entries) the plan keeps */
  int64_t head_rows;     /**< rows stored before the converged run */
  int64_t tail_rows;     /**< rows stored after it (0: not compressed) */
  int64_t factor_info;   /**< 0, or k + 1 for the first row k whose pivot broke down: every
                              solve then writes NaN (u += NaN) and checked mode's info is k + 1 */
  int64_t workspace_bytes; /**< memory the plan owns (device memory on CUDA) */
  int algorithm;         /**< the triax::FactoredAlgorithm that runs (never 0, automatic) */
  int backend;           /**< a triax_backend value */
  int compressed;        /**< nonzero: converged factor rows are stored once */
  int scaled;            /**< nonzero: the solve scales d by a power of two (extreme pivots) */
  int fuses_stencil;     /**< as triax_factored_plan_fuses_stencil */
} triax_factored_plan_properties;

/** Fills *properties; nothing is written on failure (a null argument). */
TRIAX_C_API triax_status triax_factored_plan_query(const triax_factored_plan* plan,
                                                   triax_factored_plan_properties* properties);
/** Number of systems (the length of info in checked mode); 0 for NULL. */
TRIAX_C_API int64_t triax_factored_plan_system_count(const triax_factored_plan* plan);
/** Nonzero where triax_factored_solve_stencil_* forms B f inside the solve (f read once, x
 *  written once: the CUDA chunk table route); 0 where it goes through a workspace laid out as d
 *  (allocated at the first such call and kept), and for NULL. */
TRIAX_C_API int triax_factored_plan_fuses_stencil(const triax_factored_plan* plan);

/** The solves of a factored plan; they read d and write only the output. In place: d becomes
 *  x (laid out as d). Separate: x from d, d not modified. Increment: u += x (u laid out as x; it
 *  must not share elements with d). info: NULL, or one int per system in checked mode (0, or
 *  the row + 1 where the system failed). */
TRIAX_C_API triax_status triax_factored_solve_in_place_d(triax_factored_plan* plan, double* d,
                                                         int* info);
TRIAX_C_API triax_status triax_factored_solve_in_place_f(triax_factored_plan* plan, float* d,
                                                         int* info);
TRIAX_C_API triax_status triax_factored_solve_d(triax_factored_plan* plan, const double* d,
                                                double* x, int* info);
TRIAX_C_API triax_status triax_factored_solve_f(triax_factored_plan* plan, const float* d,
                                                float* x, int* info);
TRIAX_C_API triax_status triax_factored_solve_increment_d(triax_factored_plan* plan,
                                                          const double* d, double* u, int* info);
TRIAX_C_API triax_status triax_factored_solve_increment_f(triax_factored_plan* plan,
                                                          const float* d, float* u, int* info);
/** x = A^{-1} (B f): f laid out as d (read inside each system's rows only), x as x_layout; f
 *  and x must not share an element. The stencil is read during the call only. */
TRIAX_C_API triax_status triax_factored_solve_stencil_d(triax_factored_plan* plan,
                                                        const triax_stencil_d* stencil,
                                                        const double* f, double* x, int* info);
TRIAX_C_API triax_status triax_factored_solve_stencil_f(triax_factored_plan* plan,
                                                        const triax_stencil_f* stencil,
                                                        const float* f, float* x, int* info);

/** The message of the last failed call on this thread ("" if none). */
TRIAX_C_API const char* triax_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TRIAX_TRIAX_H */
