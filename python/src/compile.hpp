// tilekit.compile's compiler step: .tk source text -> generated C++ files in a directory, with
// the kernels' signatures and ttgen's diagnostics. The same libraries and the same order of
// work as ttgen's driver (tools/ttgen/driver.cpp): parse, check, run each target's lowering
// chain, render the templates; only the source comes from memory and the files go where asked.
#pragma once

#include "lowering/pipeline.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tk::python {

struct CompileRequest {
  std::string source; // the .tk text
  std::string name;   // the file name diagnostics show (a path, or "<string>")
  std::string stem;   // generated files are <stem>.hpp, <stem>_cpu.cpp, ...
  std::filesystem::path out_dir;
  std::filesystem::path templates;
  std::vector<lower::Target> targets;
  lower::OptionOverrides overrides;
  std::vector<std::string> warning_flags; // -W<name>, -Wno-<name>, -Werror, ...
};

/// A tensor dimension: a name bound at run time or a literal size.
struct DimInfo {
  std::string name; // empty for a literal
  std::int64_t size = 0;
};

struct ParamInfo {
  std::string name;
  std::string dtype; // bf16, f32, bfp8
  bool tensor = false;
  std::vector<DimInfo> dims; // [rows, cols] or [batch, rows, cols]; empty for a scalar
};

struct KernelInfo {
  std::string name;
  std::vector<ParamInfo> inputs; // tensors and scalars, in declaration order
  std::vector<ParamInfo> outputs;
};

/// One diagnostic, flattened for Python: line and column are 1-based, 0 without a location.
struct DiagnosticInfo {
  std::string severity, message, file;
  std::uint32_t line = 0, column = 0;
};

struct CompileResult {
  bool ok = false;
  std::string text;                        // every diagnostic in clang's form, as ttgen prints it
  std::vector<DiagnosticInfo> diagnostics; // the same, top-level diagnostics only
  std::vector<KernelInfo> kernels;
};

/// Runs the compiler; a user error gives ok = false. Throws tk::InternalError (a TileKit bug) and
/// std::invalid_argument for a bad warning flag.
CompileResult compile(const CompileRequest& request);

} // namespace tk::python
