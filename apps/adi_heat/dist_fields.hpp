#pragma once
// One rank's fields of the distributed run (--procs): its block of u with one ghost layer on
// every side, refreshed from the neighbouring ranks before each explicit step, and packed right
// hand sides. Steps through advance.hpp like the single-rank fields.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "fields.hpp"
#include "sine_mode.hpp"
#include "triax/layout.hpp"

namespace adi {

template <class T>
class DistFields : public HostArrays<T> {
 public:
  // cart: a 3-D Cartesian communicator whose dimension q splits axis q; block: this rank's part.
  DistFields(MPI_Comm cart, const GridBlock& block, Coefficients<T> coefficients);
  ~DistFields();
  DistFields(const DistFields&) = delete;
  DistFields& operator=(const DistFields&) = delete;

  // u's layout: the block inside its ghost layers. d1 and d2 are packed.
  const triax::Layout& u_layout() const { return u_layout_; }
  T& u_at(std::int64_t i, std::int64_t j, std::int64_t k) {
    const std::int64_t index[3] = {i, j, k};
    return this->u_[std::size_t(u_layout_.offset_of(index))];
  }
  // Ghosts from the neighbours, then d1 = dt (Lx + Ly + Lz) u, scale = dt / h^2.
  void explicit_rhs(T scale);

  // The ranks leave the explicit step (ghost exchange, then each its own stencil) at different
  // times. Mark 0 (before the x solve) waits for all of them, so that each axis's time is its
  // solves' alone; without it the first solve that communicates absorbed that skew (4 H200s,
  // 256^3 a rank, z split: 1.6-2.3 ms a z step against 0.25-0.44 ms in triax-bench-mpi).
  void mark(int index) {
    if (index == 0) MPI_Barrier(cart_);
    HostStepClock::mark(index);
  }

 private:
  void exchange_ghosts();

  MPI_Comm cart_;
  GridBlock block_;
  triax::Layout u_layout_;
  // Per axis: the faces sent to the lower and upper neighbour and the ghost planes they fill.
  MPI_Datatype send_lower_[3], send_upper_[3], ghost_lower_[3], ghost_upper_[3];
};

}  // namespace adi
