// tilekit.compile's compiler step (see compile.hpp).
#include "python/src/compile.hpp"

#include "codegen/generate.hpp"
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "support/diagnostics.hpp"
#include "support/source.hpp"

#include <fstream>
#include <map>
#include <stdexcept>

namespace tk::python {
namespace {

ParamInfo param_info(const dsl::Param& p) {
  ParamInfo info{p.name.name, std::string(dsl::to_string(p.dtype)), p.is_tensor, {}};
  for (const dsl::Dim& d : p.dims)
    info.dims.push_back(d.name ? DimInfo{d.name->name, 0} : DimInfo{"", d.size});
  return info;
}

const char* severity_name(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

/// Appends what `diags` holds to the result (text and flattened list).
void collect(const Diagnostics& diags, CompileResult& r) {
  r.text += diags.str();
  for (const Diagnostic& d : diags.all()) {
    DiagnosticInfo info{severity_name(d.severity), d.message, "", 0, 0};
    if (d.file) {
      LineCol lc = d.file->line_col(d.range.begin);
      info.file = d.file->name();
      info.line = lc.line;
      info.column = lc.col;
    }
    r.diagnostics.push_back(std::move(info));
  }
}

void write_files(const std::filesystem::path& dir,
                 const std::map<std::string, std::string>& files) {
  namespace fs = std::filesystem;
  for (const auto& [rel, text] : files) {
    const fs::path p = dir / rel;
    fs::create_directories(p.parent_path());
    std::ofstream file(p, std::ios::binary);
    file << text;
    file.close();
    if (!file)
      throw std::runtime_error("cannot write '" + p.string() + "'");
  }
}

} // namespace

CompileResult compile(const CompileRequest& request) {
  CompileResult result;
  WarningOptions warnings;
  for (const std::string& flag : request.warning_flags)
    if (std::string problem = warnings.apply(flag); !problem.empty())
      throw std::invalid_argument(problem);

  const SourceFile file(request.name, request.source);
  Diagnostics diags(&file);
  diags.set_warnings(&warnings);
  std::optional<dsl::Module> module = parser::parse(file, diags);
  if (module)
    dsl::check(*module, diags);
  collect(diags, result); // the checker's warnings, once; later only what lowering adds
  if (!module || diags.has_errors())
    return result;
  for (const dsl::Kernel& k : module->kernels) {
    KernelInfo info{k.name.name, {}, {}};
    for (const dsl::Param& p : k.inputs)
      info.inputs.push_back(param_info(p));
    for (const dsl::Param& p : k.outputs)
      info.outputs.push_back(param_info(p));
    result.kernels.push_back(std::move(info));
  }

  lower::PipelineOptions popts;
  popts.overrides = request.overrides;
  popts.source = request.stem + ".tk";
  codegen::Lowered lowered;
  for (lower::Target t : request.targets) {
    diags.clear();
    std::optional<ir::Module> m = lower::run_pipeline(*module, t, popts, diags);
    collect(diags, result);
    if (!m || diags.has_errors())
      return result;
    (t == lower::Target::cpu ? lowered.cpu : lowered.tt) = std::move(*m);
  }
  write_files(request.out_dir, codegen::generate(lowered, request.stem, request.templates));
  result.ok = true;
  return result;
}

} // namespace tk::python
