#include "dist_fields.hpp"

#include "stencil.hpp"

namespace adi {
namespace {

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

// The plane at index `at` of axis q of the padded block: the interior along the other axes.
template <class T>
MPI_Datatype plane(const GridBlock& b, int q, std::int64_t at) {
  int sizes[3], sub[3], start[3];
  for (int k = 0; k < 3; ++k) {
    sizes[k] = int(b.extents[k] + 2);
    sub[k] = k == q ? 1 : int(b.extents[k]);
    start[k] = k == q ? int(at) : 1;
  }
  MPI_Datatype t;
  // Fortran order: the first dimension (x) varies fastest, as in the arrays.
  MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_FORTRAN, mpi_type<T>(), &t);
  MPI_Type_commit(&t);
  return t;
}

triax::Layout padded_layout(const GridBlock& b) {
  const std::int64_t* e = b.extents;
  return triax::Layout::padded({e[0], e[1], e[2]}, {e[0] + 2, e[1] + 2, e[2] + 2}, {1, 1, 1});
}

}  // namespace

template <class T>
DistFields<T>::DistFields(MPI_Comm cart, const GridBlock& block, Coefficients<T> k)
    // The ghosts on the domain's boundary stay 0: the Dirichlet condition.
    : HostArrays<T>(std::vector<T>(std::size_t((block.extents[0] + 2) * (block.extents[1] + 2) *
                                               (block.extents[2] + 2)),
                                   T(0)),
                    std::size_t(block.extents[0] * block.extents[1] * block.extents[2]), k),
      cart_(cart),
      block_(block),
      u_layout_(padded_layout(block)) {
  for (int q = 0; q < 3; ++q) {
    send_lower_[q] = plane<T>(block, q, 1);
    send_upper_[q] = plane<T>(block, q, block.extents[q]);
    ghost_lower_[q] = plane<T>(block, q, 0);
    ghost_upper_[q] = plane<T>(block, q, block.extents[q] + 1);
  }
}

template <class T>
DistFields<T>::~DistFields() {
  for (int q = 0; q < 3; ++q) {
    for (MPI_Datatype* t : {&send_lower_[q], &send_upper_[q], &ghost_lower_[q], &ghost_upper_[q]}) {
      MPI_Type_free(t);
    }
  }
}

template <class T>
void DistFields<T>::exchange_ghosts() {
  for (int q = 0; q < 3; ++q) {
    int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;  // MPI_PROC_NULL beyond the boundary
    MPI_Cart_shift(cart_, q, 1, &lower, &upper);
    T* u = this->u_.data();
    MPI_Sendrecv(u, 1, send_lower_[q], lower, 2 * q, u, 1, ghost_upper_[q], upper, 2 * q, cart_,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(u, 1, send_upper_[q], upper, 2 * q + 1, u, 1, ghost_lower_[q], lower, 2 * q + 1,
                 cart_, MPI_STATUS_IGNORE);
  }
}

template <class T>
void DistFields<T>::explicit_rhs(T scale) {
  exchange_ghosts();
  const std::int64_t ex = block_.extents[0], ey = block_.extents[1], ez = block_.extents[2];
  const std::int64_t px = ex + 2, pxy = px * (ey + 2);
  const T* u = this->u_.data();
  T* out = this->d1_.data();
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t k = 0; k < ez; ++k) {
    for (std::int64_t j = 0; j < ey; ++j) {
      const std::int64_t row = (k + 1) * pxy + (j + 1) * px + 1;
      for (std::int64_t i = 0; i < ex; ++i) {
        out[(k * ey + j) * ex + i] = dt_laplacian_padded_at(u, row + i, px, pxy, scale);
      }
    }
  }
}

template class DistFields<float>;
template class DistFields<double>;

}  // namespace adi
