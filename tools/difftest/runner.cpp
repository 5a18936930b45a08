// One kernel through the interpreter, ttgen, the C++ compiler and both targets (runner.hpp).
// The generated files are compiled into a shared object like the emulator's kernel JIT does,
// with a shim this file writes: `tkdt_run` converts the double inputs to the kernel's dtypes,
// calls run_cpu or run_tt and converts the outputs back. Its undefined symbols (the CPU runtime,
// the emulator) resolve against this executable, which exports them
// (tools/difftest/CMakeLists.txt).
#include "tools/difftest/runner.hpp"

#include "dsl/check.hpp"
#include "interp/interp.hpp"
#include "parser/parse.hpp"
#include "tools/difftest/generate.hpp"
#include "tools/ttgen/driver.hpp"

#include <tilekit/cpu/bfp8.hpp>
#include <tilekit/runtime.hpp>
#include <tt-metalium/mesh_device.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace tk::difftest {
namespace fs = std::filesystem;
namespace {

using RunFn = int (*)(int target, void* device, const double* const* inputs, const double* scalars,
                      double* const* outputs, char* error, unsigned long error_size);

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The C++ type of a tensor's elements in the generated interface (bfp8: float).
std::string element(const Tensor& t) {
  return t.dtype == "bf16" ? "tk::bf16" : "float";
}

/// `tkdt_run` for program p: inputs and outputs as row-major doubles, in signature order.
std::string shim(const Program& p) {
  std::ostringstream s;
  s << "#include \"" << p.name << ".hpp\"\n#include <cstdio>\n#include <exception>\n"
    << "#include <vector>\n\n"
    << "extern \"C\" int tkdt_run(int target, void* device, const double* const* in, "
       "const double* scalars, double* const* out, char* error, unsigned long error_size) {\n"
    << "  try {\n";
  // A rank-2 tensor is a MatrixView, a rank-3 one a TensorView (its matrices one after another).
  auto elements = [&](const Tensor& t) {
    return batch_extent(p, t) * extent(p, t, 0) * extent(p, t, 1);
  };
  auto view = [&](const Tensor& t, const std::string& type, const std::string& data) {
    const std::string size =
        std::to_string(extent(p, t, 0)) + ", " + std::to_string(extent(p, t, 1));
    if (t.batch.empty())
      return "tk::MatrixView<" + type + ">{" + data + ", " + size + "}";
    return "tk::TensorView<" + type + ">{" + data + ", " + std::to_string(batch_extent(p, t)) +
           ", " + size + "}";
  };
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const Tensor& t = p.inputs[i];
    s << "    std::vector<" << element(t) << "> in" << i << "(" << elements(t)
      << ");\n    for (std::size_t e = 0; e < in" << i << ".size(); ++e) in" << i
      << "[e] = " << element(t) << "(static_cast<float>(in[" << i << "][e]));\n";
  }
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    s << "    std::vector<" << element(p.outputs[i]) << "> out" << i << "("
      << elements(p.outputs[i]) << ");\n";
  std::string args;
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    args += ", " + view(p.inputs[i], "const " + element(p.inputs[i]),
                        "in" + std::to_string(i) + ".data()");
  for (std::size_t i = 0; i < p.scalars.size(); ++i)
    args += ", static_cast<float>(scalars[" + std::to_string(i) + "])";
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    args += ", " + view(p.outputs[i], element(p.outputs[i]), "out" + std::to_string(i) + ".data()");
  const std::string ns = "tk::gen::" + p.name + "::";
  s << "    if (target == 0)\n      " << ns << "run_cpu(" << args.substr(2) << ");\n"
    << "    else\n      " << ns
    << "run_tt(*static_cast<tt::tt_metal::distributed::MeshDevice*>(device)" << args << ");\n";
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    s << "    for (std::size_t e = 0; e < out" << i << ".size(); ++e) out[" << i
      << "][e] = static_cast<double>(static_cast<float>(out" << i << "[e]));\n";
  s << "    return 0;\n  } catch (const std::exception& e) {\n"
    << "    std::snprintf(error, error_size, \"%s\", e.what());\n    return 1;\n  }\n}\n";
  return s.str();
}

/// The compiler and the flags every kernel's files share (the precompiled header's too).
std::string compiler_and_flags() {
  const char* env = std::getenv("TK_DIFFTEST_CXX");
  std::ostringstream cmd;
  cmd << (env && *env ? env : TK_DIFFTEST_CXX) << " -std=c++20 -O1 -fPIC " << TK_DIFFTEST_SANITIZE
      << " -I" << TK_DIFFTEST_INCLUDE << " -I" << TK_DIFFTEST_EMULATOR_INCLUDE;
  return cmd.str();
}

/// The headers the generated CPU and TT host files include (templates/cpu/kernel_cpu.cpp.jinja,
/// templates/tt/host_tt.cpp.jinja). Parsing them is two thirds of a kernel's compile time, so the
/// runner precompiles them once per work directory; a header missing here is merely parsed per
/// kernel, and a failed precompile only costs time.
constexpr const char* kSharedHeaders[] = {
    "tilekit/cpu.hpp",
    "tilekit/runtime.hpp",
    "tilekit/tt_host.hpp",
    "tt-metalium/bfloat16.hpp",
    "tt-metalium/circular_buffer_config.hpp",
    "tt-metalium/circular_buffer_constants.h",
    "tt-metalium/constants.hpp",
    "tt-metalium/core_coord.hpp",
    "tt-metalium/distributed.hpp",
    "tt-metalium/host_api.hpp",
    "tt-metalium/kernel_types.hpp",
    "tt-metalium/mesh_buffer.hpp",
    "tt-metalium/mesh_device.hpp",
    "tt-metalium/mesh_workload.hpp",
    "tt-metalium/tensor_accessor_args.hpp",
    "tt-metalium/work_split.hpp",
    "algorithm",
    "bit",
    "cmath",
    "cstdio",
    "exception",
    "limits",
    "memory",
    "utility",
    "vector",
};

/// `-include` of work/pch/shared.hpp once its .gch is built (built on first use), or "".
std::string precompiled_header(const fs::path& work) {
  static std::map<fs::path, std::string> built;
  if (auto it = built.find(work); it != built.end())
    return it->second;
  const fs::path dir = work / "pch", header = dir / "shared.hpp";
  fs::create_directories(dir);
  {
    std::ofstream out(header);
    for (const char* h : kSharedHeaders)
      out << "#include <" << h << ">\n";
  }
  const std::string cmd = compiler_and_flags() + " -x c++-header " + header.string() + " -o " +
                          header.string() + ".gch > " + (dir / "pch.log").string() + " 2>&1";
  const bool ok = std::system(cmd.c_str()) == 0;
  return built[work] = ok ? " -include " + header.string() : "";
}

/// Compiles the generated files and the shim of `dir` into dir/kernel.so; "" or the errors.
std::string compile(const fs::path& dir, const Program& p) {
  const fs::path gen = dir / "gen";
  std::ostringstream cmd;
  cmd << compiler_and_flags() << precompiled_header(dir.parent_path()) << " -shared -I" << gen
      << " '-DTILEKIT_KERNEL_DIR=\"" << (gen / "kernels").string() << "\"' "
      << gen / (p.name + "_cpu.cpp") << " " << gen / (p.name + "_tt.cpp") << " " << dir / "shim.cpp"
      << " -o " << dir / "kernel.so" << " > " << dir / "compile.log" << " 2>&1";
  if (std::system(cmd.str().c_str()) == 0)
    return "";
  std::string log = read_text(dir / "compile.log");
  if (log.size() > 4000)
    log.resize(4000);
  return log;
}

/// Compares `got` with the interpreter's values and bounds; appends the first differences.
void compare(const std::string& target, const std::string& output, const std::vector<double>& got,
             const interp::Matrix& value, const interp::Matrix& bound, Outcome& o) {
  int shown = 0;
  std::int64_t bad = 0;
  const std::int64_t rows = value.batch * value.rows; // the matrices of a batch, stacked
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < value.cols; ++c) {
      const auto i = static_cast<std::size_t>(r * value.cols + c);
      const double v = value.data[i], b = bound.data[i], g = got[i];
      if (!std::isfinite(v) || !std::isfinite(b)) {
        ++o.unbounded;
        continue;
      }
      ++o.compared;
      const double ratio = b > 0 ? std::abs(g - v) / b : g == v ? 0.0 : INFINITY;
      if (ratio > o.worst) {
        o.worst = ratio;
        std::ostringstream s;
        s.precision(9);
        s << target << " " << output << "(" << r << ", " << c << ") = " << g << ", interpreter "
          << v << " +- " << b;
        o.worst_at = s.str();
      }
      if (std::abs(g - v) <= b)
        continue;
      ++bad;
      if (shown++ < 4) {
        std::ostringstream s;
        s.precision(9);
        s << "  " << target << " " << output << "(" << r << ", " << c << ") = " << g
          << ", interpreter " << v << " +- " << b << "\n";
        o.detail += s.str();
      }
    }
  if (bad > 0) {
    o.status = Outcome::Status::fail;
    if (o.kind.empty())
      o.kind = target + " mismatch";
    o.detail += "  " + target + " " + output + ": " + std::to_string(bad) + " of " +
                std::to_string(rows * value.cols) + " elements outside the bound\n";
  }
}

Outcome fail(std::string kind, std::string detail) {
  Outcome o;
  o.status = Outcome::Status::fail;
  o.kind = std::move(kind);
  o.detail = std::move(detail);
  return o;
}

Outcome run_in(const fs::path& dir, const Program& p) {
  const std::string text = print(p);
  const fs::path tk_file = dir / (p.name + ".tk");
  std::ofstream(tk_file) << text;

  // The kernel must check: the generator makes valid kernels only.
  SourceFile src(tk_file.string(), text);
  Diagnostics diags(&src);
  std::optional<dsl::Module> module = parser::parse(src, diags);
  if (!module || !dsl::check(*module, diags) || module->kernels.size() != 1) {
    Outcome o;
    o.status = Outcome::Status::invalid;
    o.kind = "invalid";
    o.detail = diags.str();
    return o;
  }
  const dsl::Kernel& kernel = module->kernels[0];

  // Inputs uniform in [kInputMin, kInputMax], or rows far from zero mean (Program::offsets),
  // rounded to each tensor's dtype.
  std::mt19937_64 rng(p.input_seed);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
  };
  interp::Inputs in;
  std::vector<std::vector<double>> input_data;
  for (const Tensor& t : p.inputs) {
    interp::Matrix m =
        interp::Matrix::batched(batch_extent(p, t), extent(p, t, 0), extent(p, t, 1));
    const auto offset = p.offsets.find(t.name);
    for (std::int64_t r = 0; r < m.batch * m.rows; ++r) {
      const double c = offset == p.offsets.end() ? 0.0 : offset->second * (1 + uniform(-1, 1) / 4);
      for (std::int64_t k = 0; k < m.cols; ++k) {
        const double u =
            offset == p.offsets.end() ? uniform(kInputMin, kInputMax) : c + uniform(-1, 1);
        m.at(r, k) = t.dtype == "bf16"
                         ? static_cast<double>(static_cast<float>(bf16(static_cast<float>(u))))
                         : static_cast<double>(static_cast<float>(u));
      }
    }
    if (t.dtype == "bfp8") { // both targets compute on the bfp8 values: so does the reference
      const std::vector<float> f(m.data.begin(), m.data.end());
      const std::vector<float> q =
          cpu::round_to_bfp8(MatrixView<const float>{f.data(), m.batch * m.rows, m.cols});
      m.data.assign(q.begin(), q.end());
    }
    input_data.push_back(m.data);
    in.tensors[t.name] = std::move(m);
  }
  // A dimension only outputs declare (every input of a grouped kernel read as x[h / 2]).
  const auto declares = [](const std::vector<Tensor>& ts, const std::string& dim) {
    return std::any_of(ts.begin(), ts.end(), [&](const Tensor& t) {
      return t.rows == dim || t.cols == dim || t.batch == dim;
    });
  };
  for (const auto& [dim, size] : p.dims)
    if (declares(p.outputs, dim) && !declares(p.inputs, dim))
      in.dims[dim] = size;
  std::vector<double> scalars;
  for (const std::string& s : p.scalars) {
    scalars.push_back(p.scalar_values.at(s));
    in.scalars[s] = scalars.back();
  }
  const interp::Bounded want_cpu = interp::run_bounded(kernel, in, interp::cpu_precision(kernel));
  const interp::Bounded want_tt = interp::run_bounded(kernel, in, interp::tt_precision(kernel));

  // Code generation, exactly as ttgen --target=all -o DIR would.
  ttgen::Options options;
  options.input = tk_file.string();
  options.output = (dir / "gen").string();
  options.emit = ttgen::Emit::code;
  options.all_targets = true;
  std::ostringstream out, err;
  std::istringstream none;
  const int rc =
      ttgen::guard_internal_errors([&] { return ttgen::run(options, none, out, err); }, err);
  if (rc != ttgen::kOk)
    return fail(rc == ttgen::kInternalError ? "ttgen internal error" : "ttgen error", err.str());

  std::ofstream(dir / "shim.cpp") << shim(p);
  if (std::string log = compile(dir, p); !log.empty())
    return fail("compile error", log);
  void* so = dlopen((dir / "kernel.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (so == nullptr)
    return fail("load error", dlerror());
  auto run = reinterpret_cast<RunFn>(dlsym(so, "tkdt_run"));
  Outcome o;
  std::vector<const double*> in_ptrs;
  for (const auto& d : input_data)
    in_ptrs.push_back(d.data());
  for (int target = 0; target < 2 && run != nullptr; ++target) {
    const std::string name = target == 0 ? "cpu" : "tt";
    const interp::Bounded& want = target == 0 ? want_cpu : want_tt;
    std::vector<std::vector<double>> got;
    std::vector<double*> out_ptrs;
    for (const Tensor& t : p.outputs)
      got.emplace_back(
          static_cast<std::size_t>(batch_extent(p, t) * extent(p, t, 0) * extent(p, t, 1)));
    for (auto& g : got)
      out_ptrs.push_back(g.data());
    char error[4096] = "";
    if (run(target, &device(), in_ptrs.data(), scalars.data(), out_ptrs.data(), error,
            sizeof error) != 0) {
      o.status = Outcome::Status::fail;
      if (o.kind.empty())
        o.kind = name + " error";
      o.detail += "  " + name + ": " + error + "\n";
      continue;
    }
    for (std::size_t i = 0; i < p.outputs.size(); ++i)
      compare(name, p.outputs[i].name, got[i], want.values.at(p.outputs[i].name),
              want.bounds.at(p.outputs[i].name), o);
  }
  dlclose(so);
  return o;
}

} // namespace

Runner::Runner(fs::path work_dir, bool keep) : work_(std::move(work_dir)), keep_(keep) {}

Outcome Runner::run(const Program& p) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path dir = work_ / (p.name + "-" + std::to_string(serial_++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Outcome o;
  try {
    o = run_in(dir, p);
  } catch (const std::exception& e) {
    o = fail("exception", e.what());
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!keep_ && o.status == Outcome::Status::pass)
    fs::remove_all(dir);
  return o;
}

tt::tt_metal::distributed::MeshDevice& device() {
  static const std::shared_ptr<tt::tt_metal::distributed::MeshDevice> dev =
      tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
  return *dev;
}

} // namespace tk::difftest
