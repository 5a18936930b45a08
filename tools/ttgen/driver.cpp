// ttgen's compilation driver (see driver.hpp).
#include "tools/ttgen/driver.hpp"

#include "codegen/generate.hpp"
#include "dsl/check.hpp"
#include "dsl/print.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "parser/parse.hpp"
#include "support/diagnostics.hpp"
#include "support/source.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace tk::ttgen {

std::optional<SourceFile> read_input(const std::string& path, std::istream& in, std::ostream& err) {
  std::ostringstream text;
  if (path == "-") {
    text << in.rdbuf();
    return SourceFile("<stdin>", text.str());
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    err << "ttgen: error: cannot read '" << path << "': is a directory\n";
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    err << "ttgen: error: cannot open '" << path << "': " << std::strerror(errno) << '\n';
    return std::nullopt;
  }
  text << file.rdbuf();
  if (file.bad()) {
    err << "ttgen: error: cannot read '" << path << "'\n";
    return std::nullopt;
  }
  return SourceFile(path, text.str());
}

namespace {

/// Writes the result where the options say; false after reporting a failure.
bool write_output(const Options& options, const std::string& text, std::ostream& out,
                  std::ostream& err) {
  if (options.output.empty()) {
    out << text;
    out.flush();
    return true;
  }
  std::ofstream file(options.output, std::ios::binary);
  if (!file) {
    err << "ttgen: error: cannot write '" << options.output << "': " << std::strerror(errno)
        << '\n';
    return false;
  }
  file << text;
  file.close();
  if (!file) {
    err << "ttgen: error: cannot write '" << options.output << "'\n";
    return false;
  }
  return true;
}

/// The stage after which the emitted IR was taken: --stop-after, else the end of the chain.
std::string last_stage(const Options& options) {
  if (options.stop_after)
    return *options.stop_after;
  return std::string(lower::stages(options.target).back().name);
}

/// The targets a code emit covers.
std::vector<lower::Target> code_targets(const Options& options) {
  if (options.all_targets)
    return {lower::Target::tt, lower::Target::cpu};
  return {options.target};
}

/// Checks what a code or template-data emit needs; false after reporting a usage error.
bool check_code_request(const Options& options, Emit emit, std::ostream& err) {
  const bool code = emit == Emit::code || emit == Emit::template_data;
  if (!code) {
    if (options.all_targets) {
      err << "ttgen: error: --target=all is only for code generation (-o DIR or "
             "--emit=template-data); name one target for --emit="
          << kEmitNames[static_cast<int>(emit)] << " and stage dumps\n";
      return false;
    }
    return true;
  }
  if (options.all_targets && (options.print_after_all || !options.print_after.empty())) {
    err << "ttgen: error: stage dumps follow one chain; name one target instead of "
           "--target=all\n";
    return false;
  }
  if (options.stop_after) {
    err << "ttgen: error: --stop-after cannot be combined with code generation, which needs the "
           "whole chain\n";
    return false;
  }
  if (emit == Emit::code && options.output.empty()) {
    err << "ttgen: error: --emit=code needs the output directory: -o DIR\n";
    return false;
  }
  if (options.input == "-") {
    err << "ttgen: error: code generation needs a named input file (its stem names the "
           "generated files), not standard input\n";
    return false;
  }
  return true;
}

/// The name generated files start with: the input file's name up to its first '.'.
std::string file_stem(const std::string& input) {
  std::string name = std::filesystem::path(input).filename().string();
  return name.substr(0, name.find('.'));
}

/// Writes every generated file under `dir` (created as needed); false after reporting a failure.
bool write_files(const std::string& dir, const std::map<std::string, std::string>& files,
                 std::ostream& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    err << "ttgen: error: cannot create directory '" << dir
        << "': " << (ec ? ec.message() : std::string("a file of that name exists")) << '\n';
    return false;
  }
  for (const auto& [rel, text] : files) {
    fs::path p = fs::path(dir) / rel;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream file(p, std::ios::binary);
    file << text;
    file.close();
    if (!file) {
      err << "ttgen: error: cannot write '" << p.string() << "'\n";
      return false;
    }
  }
  return true;
}

/// The .tk file a module comes from (its `source` attribute), else the input file itself: the
/// generated files are named after it, whether the input is the .tk file or a dump of it.
std::string source_name(const ir::Module& m, const std::string& input) {
  auto it = m.attrs.find("source");
  const std::string* s =
      it == m.attrs.end() ? nullptr : std::get_if<std::string>(&it->second.value);
  return s && !s->empty() ? *s : input;
}

/// Renders the lowered modules: the files into options.output, or the template data as text.
int emit_code(const Options& options, Emit emit, const codegen::Lowered& lowered,
              std::ostringstream& text, std::ostream& out, std::ostream& err) {
  const ir::Module& any = lowered.cpu ? *lowered.cpu : *lowered.tt;
  const std::string stem = file_stem(source_name(any, options.input));
  if (emit == Emit::template_data) {
    text << codegen::template_data(lowered, stem).dump(2) << '\n';
    return write_output(options, text.str(), out, err) ? kOk : kUsageError;
  }
  std::map<std::string, std::string> files = codegen::generate(lowered, stem);
  out << text.str(); // stage dumps, if any
  out.flush();
  return write_files(options.output, files, err) ? kOk : kUsageError;
}

} // namespace

void list_stages(lower::Target t, std::ostream& out) {
  std::size_t width = 0;
  for (const lower::Stage& s : lower::stages(t))
    width = std::max(width, s.name.size());
  for (const lower::Stage& s : lower::stages(t))
    out << s.name << std::string(width + 2 - s.name.size(), ' ') << s.summary << '\n';
}

int run(const Options& options, std::istream& in, std::ostream& out, std::ostream& err) {
  if (options.list_stages) {
    if (!options.all_targets) {
      list_stages(options.target, out);
      return kOk;
    }
    for (lower::Target t : code_targets(options)) { // --target=all: each chain under its name
      out << "# " << lower::to_string(t) << '\n';
      list_stages(t, out);
    }
    return kOk;
  }
  std::optional<SourceFile> file = read_input(options.input, in, err);
  if (!file)
    return kUsageError;

  const bool dumps = options.print_after_all || !options.print_after.empty();
  const Emit emit = options.emit.value_or(dumps                     ? Emit::none
                                          : !options.output.empty() ? Emit::code
                                                                    : Emit::ast);
  if (!check_code_request(options, emit, err))
    return kUsageError;
  const bool codegen = emit == Emit::code || emit == Emit::template_data;
  const bool lower = emit == Emit::ir || dumps || options.stop_after;

  lower::PipelineOptions popts;
  popts.stop_after = options.stop_after;
  popts.print_after.insert(options.print_after.begin(), options.print_after.end());
  popts.print_after_all = options.print_after_all;
  popts.verify_each = popts.verify_each || options.verify_each;
  popts.overrides = options.overrides;
  if (options.input != "-")
    popts.source = std::filesystem::path(options.input).filename().string();
  std::ostringstream text; // dumps, then the emitted result
  popts.dump = &text;

  Diagnostics diags(&*file);
  if (!lower::check_stage_names(popts, options.target, diags)) {
    diags.print(err);
    return kUsageError;
  }

  // A printed IR dump names the stage it was taken after; the chain resumes from there.
  if (ir::read_stage_header(file->text())) {
    if (emit == Emit::ast) {
      err << "ttgen: error: '" << file->name()
          << "' is an IR dump; --emit=ast needs a .tk file (use --emit=ir)\n";
      return kUsageError;
    }
    if (codegen && options.all_targets) {
      err << "ttgen: error: '" << file->name()
          << "' is an IR dump of one chain; name its target (--target=cpu) to generate code\n";
      return kUsageError;
    }
    std::optional<ir::Module> m =
        lower::run_pipeline_from_dump(*file, options.target, popts, diags);
    diags.print(err);
    if (!m || diags.has_errors())
      return kUserError;
    if (codegen) {
      codegen::Lowered l;
      (options.target == lower::Target::cpu ? l.cpu : l.tt) = std::move(*m);
      return emit_code(options, emit, l, text, out, err);
    }
    if (emit == Emit::ir)
      text << "// after " << last_stage(options) << '\n' << ir::print(*m);
    return write_output(options, text.str(), out, err) ? kOk : kUsageError;
  }

  std::optional<dsl::Module> module = parser::parse(*file, diags);
  if (module)
    dsl::check(*module, diags);
  if (!module || diags.has_errors()) {
    diags.print(err);
    return kUserError;
  }
  diags.print(err); // the checker's warnings, once; later prints show only what lowering adds
  diags.clear();
  if (codegen) {
    codegen::Lowered l;
    for (lower::Target t : code_targets(options)) {
      std::optional<ir::Module> m = lower::run_pipeline(*module, t, popts, diags);
      diags.print(err);
      if (!m || diags.has_errors())
        return kUserError;
      (t == lower::Target::cpu ? l.cpu : l.tt) = std::move(*m);
    }
    return emit_code(options, emit, l, text, out, err);
  }
  std::optional<ir::Module> lowered;
  if (lower) {
    lowered = lower::run_pipeline(*module, options.target, popts, diags);
    diags.print(err);
    if (!lowered || diags.has_errors())
      return kUserError;
  }

  switch (emit) {
  case Emit::ast:
    text << dsl::print(*module);
    break;
  case Emit::ir:
    text << "// after " << last_stage(options) << '\n' << ir::print(*lowered);
    break;
  case Emit::none:
  case Emit::code:
  case Emit::template_data:
    break;
  }
  return write_output(options, text.str(), out, err) ? kOk : kUsageError;
}

namespace {
/// "ttgen: internal error: <what>", whether or not `what` already starts with "internal error: "
/// (InternalError messages do, by convention; other exceptions do not).
std::string internal_error_line(const std::string& what) {
  constexpr std::string_view prefix = "internal error: ";
  return "ttgen: " + (what.rfind(prefix, 0) == 0 ? what : std::string(prefix) + what) + "\n";
}
} // namespace

int guard_internal_errors(const std::function<int()>& work, std::ostream& err) {
  try {
    return work();
  } catch (const InternalError& e) {
    err << internal_error_line(e.what());
    if (!e.detail().empty())
      err << e.detail() << '\n';
  } catch (const std::exception& e) {
    err << internal_error_line(e.what());
  } catch (...) {
    err << "ttgen: internal error: unknown exception\n";
  }
  err << "ttgen: this is a bug in TileKit, not in your kernel; please report it with the input "
         "file\n";
  return kInternalError;
}

} // namespace tk::ttgen
