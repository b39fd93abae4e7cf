# TRIAX_SANITIZE: a comma-separated -fsanitize= list (for example "address,undefined") applied to
# everything this project compiles and links, so the library, the tests and the fuzz target are
# instrumented alike (mixing instrumented and plain objects hides reports). Errors are fatal
# (-fno-sanitize-recover=all): a sanitizer report fails the test that triggered it instead of
# scrolling past in its log.
set(TRIAX_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (GCC or Clang)")
if(TRIAX_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "TRIAX_SANITIZE=${TRIAX_SANITIZE}: needs GCC or Clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(TRIAX_ENABLE_CUDA)
    # nvcc cannot instrument device code, and host code would pass -fsanitize through nvcc's host
    # compiler only partially: the sanitizer builds are CPU only.
    message(FATAL_ERROR "TRIAX_SANITIZE=${TRIAX_SANITIZE}: configure with -DTRIAX_ENABLE_CUDA=OFF")
  endif()
  set(_triax_sanitize_flags -fsanitize=${TRIAX_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_triax_sanitize_flags}>")
  add_link_options(-fsanitize=${TRIAX_SANITIZE})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # The instrumentation keeps Clang from vectorising the `omp simd` loops, and Clang says so
    # once per loop and instantiation (hundreds of lines); GCC drops them silently.
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-Wno-pass-failed>)
  endif()
  message(STATUS "triax: sanitizers ${TRIAX_SANITIZE}")
endif()
