# Sourced by scripts/run and scripts/test: installs the Debian packages triax needs when they
# are missing (as root on a fresh Debian 12 machine; otherwise it only tells what is missing).
triax_ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "triax: missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    return 1
  fi
  echo "triax: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The packages every build needs; tests and benchmarks add LAPACKE (OpenBLAS) and GoogleTest,
# triax-bench's command line and JSON libraries (CLI11, nlohmann-json; header-only, so
# scripts/vendor-bench-deps can copy them to .deps/ for a machine that cannot install them), and
# OpenMPI, with which the build turns on the distributed layer triax::mpi and its tests run
# under mpirun.
TRIAX_BUILD_PACKAGES=(cmake g++ make pkg-config libgomp1)
TRIAX_BENCH_PACKAGES=(libcli11-dev nlohmann-json3-dev)
TRIAX_MPI_PACKAGES=(libopenmpi-dev openmpi-bin)
TRIAX_TEST_PACKAGES=(libgtest-dev liblapacke-dev libopenblas-dev "${TRIAX_BENCH_PACKAGES[@]}"
                     "${TRIAX_MPI_PACKAGES[@]}")
# scripts/fuzz: Clang with libFuzzer and the sanitizer runtimes, and LLVM's OpenMP for Clang.
TRIAX_FUZZ_PACKAGES=(clang libclang-rt-dev libomp-dev)
# scripts/test-arm: the 64-bit Arm cross compiler and qemu's user-mode emulator.
TRIAX_ARM_PACKAGES=(g++-aarch64-linux-gnu qemu-user)
