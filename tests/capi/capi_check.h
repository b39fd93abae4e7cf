/* The C tests' check: prints a failed condition with its file and line and counts it. */
#ifndef TRIAX_TESTS_CAPI_CHECK_H
#define TRIAX_TESTS_CAPI_CHECK_H
#include <stdio.h>

static int failures = 0;
#define CHECK(cond, ...)                            \
  do {                                              \
    if (!(cond)) {                                  \
      printf("FAILED %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                          \
      printf("\n");                                 \
      ++failures;                                   \
    }                                               \
  } while (0)

#endif
