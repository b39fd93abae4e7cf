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

/** The message of the last failed call on this thread ("" if none). */
TRIAX_C_API const char* triax_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TRIAX_TRIAX_H */
