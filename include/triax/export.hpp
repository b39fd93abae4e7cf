#pragma once
/// @file export.hpp
/// TRIAX_API marks the public symbols; everything else in the library is hidden, because triax
/// shares processes with PyTorch, CuPy and other CUDA libraries.
#if defined(_WIN32)
#define TRIAX_API
#else
#define TRIAX_API __attribute__((visibility("default")))
#endif
