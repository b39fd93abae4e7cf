// triax._core: the extension module under the Python package. The package's Python code
// (triax/_api.py) picks output arrays, streams and the checked mode's info arrays with each
// array library's own calls; this module describes the arrays, keeps the plans and solves.
#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "factored_plan.hpp"
#include "operands.hpp"
#include "plan.hpp"
#include "var_plan.hpp"

namespace nb = nanobind;
using namespace triax::python;

namespace {

int* info_pointer(nb::handle info, const Signature& s, nb::ndarray<>& holder) {
  if (!s.checked || s.size() == 0) return nullptr;  // empty: the Python layer filled info
  return import_info(info, s, s.size() / s.shape[s.axis], holder);
}

void solve(nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out, int axis,
           bool increment, bool checked, nb::handle info, std::uintptr_t stream, bool block) {
  Operands ops;
  const Signature s = describe(a, b, c, d, out, axis, checked, ops, block);
  nb::ndarray<> info_holder;
  int* info_ptr = info_pointer(info, s, info_holder);
  solve_cached(s, ops, increment, info_ptr, stream);
}

void run_plan(Plan& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out,
              bool increment, nb::handle info, std::uintptr_t stream) {
  const Signature& p = plan.signature();
  Operands ops;
  const Signature s = describe(a, b, c, d, out, p.axis, p.checked, ops, p.block_m > 0);
  if (!(s == p)) {
    throw nb::value_error(("triax.Solver: these arrays do not fit the plan: " + difference(p, s) +
                           " (make a new Solver, or use triax.solve)")
                              .c_str());
  }
  nb::ndarray<> info_holder;
  int* info_ptr = info_pointer(info, s, info_holder);
  plan.run(ops, increment, info_ptr, stream);
}

// Raises ValueError unless the call's arrays fit the plan's signature.
void check_fits(const Signature& plan, const Signature& call, const char* name) {
  if (!(call == plan)) {
    throw nb::value_error((std::string("triax.") + name + ": these arrays do not fit the plan: " +
                           difference(plan, call) + " (make a new " + name + ")")
                              .c_str());
  }
}

void run_factored(FactoredPlan& plan, nb::handle d, nb::handle out, bool increment, nb::handle info,
                  std::uintptr_t stream) {
  const Signature& p = plan.signature();
  Operands ops;
  const Signature s = describe_vectors(d, out, p.axis, p.checked, ops);
  check_fits(p, s, "FactoredSolver");
  nb::ndarray<> info_holder;
  int* info_ptr = info_pointer(info, s, info_holder);
  plan.run(ops, increment, info_ptr, stream);
}

// solve_stencil: f takes d's place in the plan's signature (and its checks), x out's.
void run_factored_stencil(FactoredPlan& plan, nb::handle f, nb::handle out,
                          const std::array<double, 25>& weights, nb::handle info,
                          std::uintptr_t stream) {
  const Signature& p = plan.signature();
  Operands ops;
  const Signature s = describe_vectors(f, out, p.axis, p.checked, ops);
  if (!(s == p)) {
    std::string diff = difference(p, s);
    if (diff.rfind("d's ", 0) == 0) diff[0] = 'f';  // f stands where the plan's d does
    throw nb::value_error(("triax.FactoredSolver.solve_stencil: these arrays do not fit the plan: " +
                           diff + " (f takes the place of the plan's d; make a new FactoredSolver)")
                              .c_str());
  }
  nb::ndarray<> info_holder;
  int* info_ptr = info_pointer(info, s, info_holder);
  plan.run_stencil(ops, weights, info_ptr, stream);
}

void run_var(VarPlan& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out,
             bool increment, nb::handle info, std::uintptr_t stream) {
  const Signature& p = plan.signature();
  Operands ops;
  const Signature s = describe(a, b, c, d, out, p.axis, p.checked, ops);
  check_fits(p, s, "VarSolver");
  nb::ndarray<> info_holder;
  int* info_ptr = nullptr;
  if (s.checked && plan.system_count() > 0) {
    info_ptr = import_info(info, s, plan.system_count(), info_holder);
  }
  plan.run(ops, increment, info_ptr, stream);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "triax's extension module; use the functions of the triax package instead.";

  // The library's exceptions as Python's: misuse is a ValueError, a workspace that cannot be
  // allocated a MemoryError, the rest (not_compiled, cuda_error) RuntimeError.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const triax::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const triax::out_of_memory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const triax::error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  static nb::object negative_strides =
      nb::exception<NegativeStrides>(m, "NegativeStrideError", PyExc_ValueError);
  // The operand mask travels as the exception's argument, for the Python layer's retry.
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const NegativeStrides& e) {
          PyErr_SetObject(negative_strides.ptr(), nb::int_(e.mask).ptr());
        }
      },
      nullptr);

  // None is accepted here so that describe() can say which argument it was.
  m.def("solve", &solve, nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(),
        nb::arg("d").none(), nb::arg("out").none(), nb::arg("axis"), nb::arg("increment"),
        nb::arg("checked"), nb::arg("info").none(), nb::arg("stream"), nb::arg("block") = false,
        "Solves with the cached plan of these arrays (out = x, or out += x); block: a, b, c are "
        "M x M blocks of shape (*grid, M, M) and d, out of shape (*grid, M).");
  m.def("cache_size", &cache_size, "The number of plans in solve()'s cache.");
  m.def("clear_cache", &clear_cache, "Drops every cached plan (and its workspace).");
  m.def(
      "cuda_compiled", [] { return triax::backend_compiled(triax::Backend::cuda); },
      "Whether this build has the CUDA backend.");

  nb::class_<Plan>(m, "Plan")
      .def(
          "__init__",
          [](Plan* self, nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out,
             int axis, bool checked, std::uintptr_t stream, bool block) {
            Operands ops;
            new (self) Plan(describe(a, b, c, d, out, axis, checked, ops, block), stream);
          },
          nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(), nb::arg("d").none(),
          nb::arg("out").none(), nb::arg("axis"), nb::arg("checked"), nb::arg("stream"),
          nb::arg("block") = false)
      .def("run", &run_plan, nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(),
           nb::arg("d").none(), nb::arg("out").none(), nb::arg("increment"), nb::arg("info").none(),
           nb::arg("stream"))
      .def_prop_ro("algorithm", &Plan::algorithm)
      .def_prop_ro("backend", &Plan::backend)
      .def_prop_ro("system_length", &Plan::system_length)
      .def_prop_ro("system_count", &Plan::system_count)
      .def_prop_ro("workspace_bytes", &Plan::workspace_bytes)
      .def_prop_ro("axis", [](const Plan& p) { return p.signature().axis; })
      .def_prop_ro("block_size", [](const Plan& p) { return p.signature().block_m; })
      .def_prop_ro("checked", [](const Plan& p) { return p.signature().checked; });

  nb::class_<FactoredPlan>(m, "FactoredPlan")
      .def(
          "__init__",
          [](FactoredPlan* self, nb::handle a, nb::handle b, nb::handle c, nb::handle d,
             nb::handle out, int axis, bool checked, std::uintptr_t stream,
             std::vector<std::int64_t> coefficient_shape, const std::string& algorithm) {
            Operands ops;
            new (self) FactoredPlan(a, b, c, describe_vectors(d, out, axis, checked, ops), stream,
                                    std::move(coefficient_shape), algorithm);
          },
          nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(), nb::arg("d").none(),
          nb::arg("out").none(), nb::arg("axis"), nb::arg("checked"), nb::arg("stream"),
          nb::arg("coefficient_shape") = std::vector<std::int64_t>{},
          nb::arg("algorithm") = "automatic")
      .def("run", &run_factored, nb::arg("d").none(), nb::arg("out").none(), nb::arg("increment"),
           nb::arg("info").none(), nb::arg("stream"))
      .def_prop_ro("backend", &FactoredPlan::backend)
      .def_prop_ro("system_length", &FactoredPlan::system_length)
      .def_prop_ro("system_count", &FactoredPlan::system_count)
      .def_prop_ro("stored_rows", &FactoredPlan::stored_rows)
      .def_prop_ro("compressed", &FactoredPlan::compressed)
      .def_prop_ro("factor_info", &FactoredPlan::factor_info)
      .def_prop_ro("workspace_bytes", &FactoredPlan::workspace_bytes)
      .def_prop_ro("algorithm", &FactoredPlan::algorithm)
      .def("run_stencil", &run_factored_stencil, nb::arg("f").none(), nb::arg("out").none(),
           nb::arg("weights"), nb::arg("info").none(), nb::arg("stream"))
      .def_prop_ro("group_count", &FactoredPlan::group_count)
      .def_prop_ro("fuses_stencil", &FactoredPlan::fuses_stencil)
      .def_prop_ro("axis", [](const FactoredPlan& p) { return p.signature().axis; });

  nb::class_<VarPlan>(m, "VarPlan")
      .def(
          "__init__",
          [](VarPlan* self, nb::handle lengths, nb::handle offsets, nb::handle a, nb::handle b,
             nb::handle c, nb::handle d, nb::handle out, int axis, bool back_to_back, bool checked,
             std::uintptr_t stream) {
            Operands ops;
            const Signature s = describe(a, b, c, d, out, back_to_back ? 0 : axis, checked, ops);
            new (self) VarPlan(lengths, offsets, back_to_back, s, stream);
          },
          nb::arg("lengths").none(), nb::arg("offsets").none(), nb::arg("a").none(),
          nb::arg("b").none(), nb::arg("c").none(), nb::arg("d").none(), nb::arg("out").none(),
          nb::arg("axis"), nb::arg("back_to_back"), nb::arg("checked"), nb::arg("stream"))
      .def("run", &run_var, nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(),
           nb::arg("d").none(), nb::arg("out").none(), nb::arg("increment"), nb::arg("info").none(),
           nb::arg("stream"))
      .def_prop_ro("backend", &VarPlan::backend)
      .def_prop_ro("system_count", &VarPlan::system_count)
      .def_prop_ro("total_rows", &VarPlan::total_rows)
      .def_prop_ro("max_length", &VarPlan::max_length)
      .def_prop_ro("span", &VarPlan::span)
      .def_prop_ro("back_to_back", &VarPlan::back_to_back)
      .def_prop_ro("workspace_bytes", &VarPlan::workspace_bytes)
      .def_prop_ro("axis", [](const VarPlan& p) { return p.signature().axis; });
}
