#include "triax/options.hpp"

namespace triax {

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::automatic: return "automatic";
    case Algorithm::reference_thomas: return "reference_thomas";
    case Algorithm::reference_dense_lu: return "reference_dense_lu";
    case Algorithm::cpu_thomas: return "cpu_thomas";
    case Algorithm::cpu_thomas_transpose: return "cpu_thomas_transpose";
    case Algorithm::cpu_thomas_partitioned: return "cpu_thomas_partitioned";
    case Algorithm::cuda_thread_thomas: return "cuda_thread_thomas";
    case Algorithm::cuda_thread_thomas_shared_transpose:
      return "cuda_thread_thomas_shared_transpose";
    case Algorithm::cuda_thread_thomas_shuffle_transpose:
      return "cuda_thread_thomas_shuffle_transpose";
    case Algorithm::cuda_warp_thomas_pcr: return "cuda_warp_thomas_pcr";
    case Algorithm::cuda_block_thomas_pcr: return "cuda_block_thomas_pcr";
    case Algorithm::cpu_cr: return "cpu_cr";
    case Algorithm::cpu_pcr: return "cpu_pcr";
    case Algorithm::cpu_rd: return "cpu_rd";
    case Algorithm::cpu_cr_pcr: return "cpu_cr_pcr";
    case Algorithm::cpu_cr_rd: return "cpu_cr_rd";
    case Algorithm::cuda_cr: return "cuda_cr";
    case Algorithm::cuda_pcr: return "cuda_pcr";
    case Algorithm::cuda_rd: return "cuda_rd";
    case Algorithm::cuda_cr_pcr: return "cuda_cr_pcr";
    case Algorithm::cuda_cr_rd: return "cuda_cr_rd";
  }
  return "unknown";
}

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::reference: return "reference";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "unknown";
}

}  // namespace triax
