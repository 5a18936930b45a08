// tilekit._tilekit: the pybind11 extension behind the Python package (docs/python.md). It holds
// what Python cannot do itself: the compiler (compile.hpp) and the emulator's device and timing
// API. Tensors never pass through it: kernel libraries are called from Python with ctypes.
#include "python/src/compile.hpp"

#include "arch/arch.hpp"
#include "support/diagnostics.hpp"

#include <tk_emulator/emulator.hpp>
#include <tt-metalium/mesh_device.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace py = pybind11;
namespace tkp = tk::python;

namespace {

py::dict param_dict(const tkp::ParamInfo& p) {
  py::list dims;
  for (const tkp::DimInfo& d : p.dims)
    dims.append(d.name.empty() ? py::object(py::int_(d.size)) : py::object(py::str(d.name)));
  py::dict r;
  r["name"] = p.name;
  r["dtype"] = p.dtype;
  r["tensor"] = p.tensor;
  r["dims"] = dims;
  return r;
}

py::dict compile(const std::string& source, const std::string& name, const std::string& stem,
                 const std::string& out_dir, const std::string& templates,
                 const std::vector<std::string>& targets, std::optional<std::pair<int, int>> grid,
                 std::optional<std::int64_t> cb_depth, std::optional<bool> fp32_acc,
                 std::optional<std::string> math_fidelity,
                 const std::vector<std::string>& warnings) {
  tkp::CompileRequest req;
  req.source = source;
  req.name = name;
  req.stem = stem;
  req.out_dir = out_dir;
  req.templates = templates;
  for (const std::string& t : targets) {
    std::optional<tk::lower::Target> target = tk::lower::target_from_string(t);
    if (!target)
      throw py::value_error("unknown target '" + t + "' (tt or cpu)");
    req.targets.push_back(*target);
  }
  if (grid)
    req.overrides.grid = tk::ir::Grid{grid->first, grid->second};
  req.overrides.cb_depth = cb_depth;
  req.overrides.fp32_acc = fp32_acc;
  req.overrides.math_fidelity = math_fidelity;
  req.warning_flags = warnings;

  tkp::CompileResult r;
  {
    py::gil_scoped_release release; // compiling takes a while; other Python threads may run
    r = tkp::compile(req);
  }
  py::list kernels;
  for (const tkp::KernelInfo& k : r.kernels) {
    py::list in, out;
    for (const tkp::ParamInfo& p : k.inputs)
      in.append(param_dict(p));
    for (const tkp::ParamInfo& p : k.outputs)
      out.append(param_dict(p));
    py::dict d;
    d["name"] = k.name;
    d["inputs"] = in;
    d["outputs"] = out;
    kernels.append(d);
  }
  py::list diags;
  for (const tkp::DiagnosticInfo& d : r.diagnostics) {
    py::dict x;
    x["severity"] = d.severity;
    x["message"] = d.message;
    x["file"] = d.file;
    x["line"] = d.line;
    x["column"] = d.column;
    diags.append(x);
  }
  py::dict result;
  result["ok"] = r.ok;
  result["text"] = r.text;
  result["diagnostics"] = diags;
  result["kernels"] = kernels;
  return result;
}

/// The process's one emulated device, opened on first use and kept until exit.
std::uintptr_t tt_device() {
  static std::shared_ptr<tt::tt_metal::distributed::MeshDevice>* device =
      new std::shared_ptr<tt::tt_metal::distributed::MeshDevice>(
          tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0));
  return reinterpret_cast<std::uintptr_t>(device->get());
}

py::dict timing_dict(const tk::rt::emu::ProgramTiming& t) {
  py::list kernels;
  for (const tk::rt::emu::KernelTiming& k : t.kernels) {
    py::dict d;
    d["core"] = py::make_tuple(k.core_x, k.core_y);
    d["kernel"] = k.kernel;
    d["risc"] = k.risc;
    d["end_cycle"] = k.end_cycle;
    d["busy_cycles"] = k.busy_cycles;
    d["stalled_cycles"] = k.stalled_cycles;
    d["stalls"] = k.stalls;
    d["dram_bytes_read"] = k.dram_bytes_read;
    d["dram_bytes_written"] = k.dram_bytes_written;
    d["noc_bytes_read"] = k.noc_bytes_read;
    d["noc_bytes_written"] = k.noc_bytes_written;
    d["tile_ops"] = k.tile_ops;
    kernels.append(d);
  }
  py::dict d;
  d["arch"] = t.arch;
  d["clock_ghz"] = t.clock_ghz;
  d["device_cycles"] = t.device_cycles;
  d["device_us"] = t.device_us;
  d["dram_bytes_read"] = t.dram_bytes_read;
  d["dram_bytes_written"] = t.dram_bytes_written;
  d["matmul_tiles"] = t.matmul_tiles;
  d["matmul_tflops"] = t.matmul_tflops;
  d["ideal_matmul_cycles"] = t.ideal_matmul_cycles;
  d["utilization"] = t.utilization;
  d["dram_gbps"] = t.dram_gbps;
  d["dram_roofline_gbps"] = t.dram_roofline_gbps;
  d["compute_bound_cycles"] = t.compute_bound_cycles;
  d["dram_bound_cycles"] = t.dram_bound_cycles;
  d["kernels"] = kernels;
  return d;
}

} // namespace

PYBIND11_MODULE(_tilekit, m) {
  m.doc() = "TileKit's compiler and emulator, for the tilekit package";
  m.attr("version") = TK_VERSION;
  // The grid of the architecture the package compiles for (arch/): tilekit.compile bounds `grid`
  // by it, as ttgen's --grid does.
  m.attr("grid_sides") =
      py::make_tuple(tk::arch::default_arch().grid_x, tk::arch::default_arch().grid_y);
  m.def("compile", &compile, py::arg("source"), py::arg("name"), py::arg("stem"),
        py::arg("out_dir"), py::arg("templates"), py::arg("targets"), py::arg("grid") = py::none(),
        py::arg("cb_depth") = py::none(), py::arg("fp32_acc") = py::none(),
        py::arg("math_fidelity") = py::none(), py::arg("warnings") = std::vector<std::string>{},
        "Compiles .tk source into out_dir; a dict of ok, text, diagnostics and kernels");
  m.def("tt_device", &tt_device, "The address of the process's emulated MeshDevice");
  m.def(
      "set_timing", [](std::optional<bool> on) { tk::rt::emu::set_timing(on); }, py::arg("on"),
      "Turns the emulator's timing model on or off (None: the environment)");
  m.def(
      "timings",
      [] {
        py::list l;
        for (const tk::rt::emu::ProgramTiming& t : tk::rt::emu::timings())
          l.append(timing_dict(t));
        return l;
      },
      "Every program run in timing mode since set_timing(True), as dicts");
  m.def("jit_stats", [] {
    tk::rt::emu::JitStats s = tk::rt::emu::jit_stats();
    py::dict d;
    d["compiled"] = s.compiled;
    d["disk_hits"] = s.disk_hits;
    d["memory_hits"] = s.memory_hits;
    return d;
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tk::InternalError& e) {
      std::string what = e.what();
      if (what.rfind("internal error: ", 0) != 0)
        what = "internal error: " + what;
      what +=
          "\nthis is a bug in TileKit, not in your kernel; please report it with the input file";
      PyErr_SetString(PyExc_RuntimeError, what.c_str());
    }
  });
}
