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
#include "support/suggest.hpp"
#include "tools/ttgen/dot.hpp"
#include "tools/ttgen/report.hpp"
#include "tools/ttgen/timing.hpp"

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

std::optional<SourceFile> read_input(const std::string& path, std::istream& in, Reporter& err) {
  std::ostringstream text;
  if (path == "-") {
    text << in.rdbuf();
    return SourceFile("<stdin>", text.str());
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    err.error("cannot read '" + path + "': is a directory");
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    err.error("cannot open '" + path + "': " + std::strerror(errno));
    return std::nullopt;
  }
  text << file.rdbuf();
  if (file.bad()) {
    err.error("cannot read '" + path + "'");
    return std::nullopt;
  }
  return SourceFile(path, text.str());
}

namespace {

/// Writes the result where the options say; false after reporting a failure.
bool write_output(const Options& options, const std::string& text, std::ostream& out,
                  Reporter& err) {
  if (options.output.empty()) {
    out << text;
    out.flush();
    return true;
  }
  std::ofstream file(options.output, std::ios::binary);
  if (!file) {
    err.error("cannot write '" + options.output + "': " + std::strerror(errno));
    return false;
  }
  file << text;
  file.close();
  if (!file) {
    err.error("cannot write '" + options.output + "'");
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
bool wants_dumps(const Options& o) {
  return o.print_after_all || o.print_changed || !o.print_after.empty() || !o.print_before.empty();
}

bool check_code_request(const Options& options, Emit emit, Reporter& err) {
  const bool code = emit == Emit::code || emit == Emit::template_data;
  if (!code) {
    if (options.all_targets) {
      err.error("--target=all is only for code generation (-o DIR or --emit=template-data); "
                "name one target for --emit=" +
                std::string(kEmitNames[static_cast<int>(emit)]) + " and stage dumps");
      return false;
    }
    if (emit == Emit::dot && options.target != lower::Target::tt) {
      err.error("--emit=dot draws the TT dataflow (reader, compute, writer and their circular "
                "buffers); use --target=tt");
      return false;
    }
    if (emit == Emit::dot && options.stop_after) {
      err.error("--emit=dot needs the whole TT chain; drop --stop-after");
      return false;
    }
    return true;
  }
  if (options.all_targets && wants_dumps(options)) {
    err.error("stage dumps follow one chain; name one target instead of --target=all");
    return false;
  }
  if (options.stop_after) {
    err.error("--stop-after cannot be combined with code generation, which needs the whole chain");
    return false;
  }
  if (emit == Emit::code && options.output.empty()) {
    err.error("--emit=code needs the output directory: -o DIR");
    return false;
  }
  if (options.input == "-") {
    err.error("code generation needs a named input file (its stem names the generated files), "
              "not standard input");
    return false;
  }
  return true;
}

/// --kernel=NAME: keeps the items named NAME; false after reporting that there is none.
template <class T, class NameOf>
bool select_kernel(const Options& options, std::vector<T>& items, NameOf name_of,
                   const std::string& file, Reporter& err) {
  if (!options.kernel)
    return true;
  std::vector<std::string> names;
  for (const T& x : items)
    if (std::find(names.begin(), names.end(), name_of(x)) == names.end())
      names.push_back(name_of(x));
  std::erase_if(items, [&](const T& x) { return name_of(x) != *options.kernel; });
  if (!items.empty())
    return true;
  std::string hint = closest(*options.kernel, names);
  std::string all;
  for (const std::string& n : names)
    all += (all.empty() ? "" : ", ") + n;
  err.error("--kernel: no kernel '" + *options.kernel + "' in '" + file + "'" +
            (!hint.empty() ? "; did you mean '" + hint + "'?"
             : all.empty() ? std::string()
                           : "; its kernels are " + all));
  return false;
}

/// The name generated files start with: the input file's name up to its first '.'.
std::string file_stem(const std::string& input) {
  std::string name = std::filesystem::path(input).filename().string();
  return name.substr(0, name.find('.'));
}

/// Writes every generated file under `dir` (created as needed); false after reporting a failure.
bool write_files(const std::string& dir, const std::map<std::string, std::string>& files,
                 Reporter& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    err.error("cannot create directory '" + dir +
              "': " + (ec ? ec.message() : std::string("a file of that name exists")));
    return false;
  }
  for (const auto& [rel, text] : files) {
    fs::path p = fs::path(dir) / rel;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream file(p, std::ios::binary);
    file << text;
    file.close();
    if (!file) {
      err.error("cannot write '" + p.string() + "'");
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
/// `templates`: the templates, when their parse was started before the lowering.
int emit_code(const Options& options, Emit emit, const codegen::Lowered& lowered,
              std::ostringstream& text, std::ostream& out, Reporter& err,
              std::vector<lower::StageTime>* times,
              const codegen::ParsedTemplates* templates = nullptr) {
  const ir::Module& any = lowered.cpu ? *lowered.cpu : *lowered.tt;
  const std::string stem = file_stem(source_name(any, options.input));
  if (emit == Emit::template_data) {
    text << time_phase(times, "generate", [&] {
      return codegen::template_data(lowered, stem).to_json().dump(2);
    }) << '\n';
    return time_phase(times, "write", [&] { return write_output(options, text.str(), out, err); })
               ? kOk
               : kUsageError;
  }
  std::map<std::string, std::string> files = time_phase(times, "generate", [&] {
    return templates
               ? codegen::generate(lowered, stem, *templates, options.formatting)
               : codegen::generate(lowered, stem, codegen::template_dir(), options.formatting);
  });
  out << text.str(); // stage dumps, if any
  out.flush();
  return time_phase(times, "write", [&] { return write_files(options.output, files, err); })
             ? kOk
             : kUsageError;
}

/// The pipeline options the command line asks for; dumps go to `text`.
lower::PipelineOptions pipeline_options(const Options& options, std::ostringstream& text,
                                        std::vector<lower::StageTime>* times) {
  lower::PipelineOptions popts;
  popts.stop_after = options.stop_after;
  popts.print_after.insert(options.print_after.begin(), options.print_after.end());
  popts.print_before.insert(options.print_before.begin(), options.print_before.end());
  popts.print_after_all = options.print_after_all;
  popts.print_changed = options.print_changed;
  popts.verify_each = popts.verify_each || options.verify_each;
  popts.overrides = options.overrides;
  popts.times = times;
  if (options.input != "-")
    popts.source = std::filesystem::path(options.input).filename().string();
  popts.dump = &text;
  return popts;
}

/// The stages of one chain of --target=all are timed as "STAGE (TARGET)".
void tag_times(std::vector<lower::StageTime>* times, std::size_t from, lower::Target t) {
  if (times)
    for (std::size_t i = from; i < times->size(); ++i)
      (*times)[i].stage += " (" + std::string(lower::to_string(t)) + ")";
}

/// The text --emit=ast/ir/dot (or none) prints after the dumps.
void emit_text(const Options& options, Emit emit, const dsl::Module* ast, const ir::Module* ir,
               std::ostringstream& text) {
  switch (emit) {
  case Emit::ast:
    text << dsl::print(*ast);
    break;
  case Emit::ir:
    text << "// after " << last_stage(options) << '\n' << ir::print(*ir);
    break;
  case Emit::dot:
    text << dot_graph(*ir);
    break;
  case Emit::none:
  case Emit::code:
  case Emit::template_data:
    break;
  }
}

/// Resumes the chain from a printed IR dump.
int run_dump(const Options& options, Emit emit, const SourceFile& file,
             const lower::PipelineOptions& popts, Diagnostics& diags, std::ostringstream& text,
             std::ostream& out, Reporter& err) {
  const bool codegen = emit == Emit::code || emit == Emit::template_data;
  if (emit == Emit::ast) {
    err.error("'" + file.name() + "' is an IR dump; --emit=ast needs a .tk file (use --emit=ir)");
    return kUsageError;
  }
  if (codegen && options.all_targets) {
    err.error("'" + file.name() +
              "' is an IR dump of one chain; name its target (--target=cpu) to generate code");
    return kUsageError;
  }
  std::optional<lower::Dump> dump = time_phase(
      popts.times, "read-dump", [&] { return lower::read_dump(file, options.target, diags); });
  if (!dump) {
    err.add(diags);
    return kUserError;
  }
  // A reduction kernel's combine program (lower-reductions) goes with the kernel it finishes.
  std::map<std::string, std::string> owner;
  for (const ir::Program& p : dump->module.programs)
    if (!p.combine.empty())
      owner[p.combine] = p.name;
  if (!select_kernel(
          options, dump->module.programs,
          [&](const ir::Program& p) {
            auto it = owner.find(p.name);
            return it == owner.end() ? p.name : it->second;
          },
          file.name(), err))
    return kUsageError;
  std::optional<ir::Module> m =
      lower::run_pipeline_from_dump(std::move(*dump), options.target, popts, diags);
  err.add(diags);
  if (!m || diags.has_errors())
    return kUserError;
  if (codegen) {
    codegen::Lowered l;
    (options.target == lower::Target::cpu ? l.cpu : l.tt) = std::move(*m);
    return emit_code(options, emit, l, text, out, err, popts.times);
  }
  emit_text(options, emit, nullptr, &*m, text);
  return time_phase(popts.times, "write",
                    [&] { return write_output(options, text.str(), out, err); })
             ? kOk
             : kUsageError;
}

/// Everything after the flags: the exit code; diagnostics to `err`.
int compile(const Options& options, std::istream& in, std::ostream& out, Reporter& err,
            std::vector<lower::StageTime>* times) {
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
  std::optional<SourceFile> file =
      time_phase(times, "read", [&] { return read_input(options.input, in, err); });
  if (!file)
    return kUsageError;

  const bool dumps = wants_dumps(options);
  const Emit emit = options.emit.value_or(dumps                     ? Emit::none
                                          : !options.output.empty() ? Emit::code
                                                                    : Emit::ast);
  if (!check_code_request(options, emit, err))
    return kUsageError;
  const bool codegen = emit == Emit::code || emit == Emit::template_data;
  const bool lower = emit == Emit::ir || emit == Emit::dot || dumps || options.stop_after;

  std::ostringstream text; // dumps, then the emitted result
  lower::PipelineOptions popts = pipeline_options(options, text, times);
  Diagnostics diags(&*file);
  diags.set_warnings(&options.warnings);
  if (!lower::check_stage_names(popts, options.target, diags)) {
    err.add(diags);
    return kUsageError;
  }

  // A printed IR dump names the stage it was taken after; the chain resumes from there.
  if (ir::read_stage_header(file->text()))
    return run_dump(options, emit, *file, popts, diags, text, out, err);

  std::optional<dsl::Module> module =
      time_phase(times, "parse", [&] { return parser::parse(*file, diags); });
  if (module && !select_kernel(
                    options, module->kernels, [](const dsl::Kernel& k) { return k.name.name; },
                    file->name(), err))
    return kUsageError;
  if (module)
    time_phase(times, "check", [&] { return dsl::check(*module, diags); });
  err.add(diags); // the checker's warnings, once; later reports show only what lowering adds
  if (!module || diags.has_errors())
    return kUserError;
  diags.clear();
  if (codegen) {
    // The templates parse on a thread of their own while the chains lower (the second core has
    // nothing else to do before the first file is rendered; docs/ttgen.md "Start-up").
    std::optional<codegen::ParsedTemplates> templates;
    if (emit == Emit::code) {
      bool cpu = false, tt = false;
      for (lower::Target t : code_targets(options))
        (t == lower::Target::cpu ? cpu : tt) = true;
      templates = codegen::parse_templates_async(cpu, tt);
    }
    codegen::Lowered l;
    for (lower::Target t : code_targets(options)) {
      const std::size_t timed = times ? times->size() : 0;
      std::optional<ir::Module> m = lower::run_pipeline(*module, t, popts, diags);
      if (options.all_targets)
        tag_times(times, timed, t);
      err.add(diags);
      if (!m || diags.has_errors())
        return kUserError;
      diags.clear();
      (t == lower::Target::cpu ? l.cpu : l.tt) = std::move(*m);
    }
    return emit_code(options, emit, l, text, out, err, times, templates ? &*templates : nullptr);
  }
  std::optional<ir::Module> lowered;
  if (lower) {
    lowered = lower::run_pipeline(*module, options.target, popts, diags);
    err.add(diags);
    if (!lowered || diags.has_errors())
      return kUserError;
  }
  emit_text(options, emit, &*module, lowered ? &*lowered : nullptr, text);
  return time_phase(times, "write", [&] { return write_output(options, text.str(), out, err); })
             ? kOk
             : kUsageError;
}

} // namespace

void list_stages(lower::Target t, std::ostream& out) {
  std::size_t width = 0;
  for (const lower::Stage& s : lower::stages(t))
    width = std::max(width, s.name.size());
  for (const lower::Stage& s : lower::stages(t))
    out << s.name << std::string(width + 2 - s.name.size(), ' ') << s.summary << '\n';
}

namespace {

/// "internal error: <what>", whether or not `what` already starts with "internal error: "
/// (InternalError messages do, by convention; other exceptions do not).
std::string internal_error_message(const std::string& what) {
  constexpr std::string_view prefix = "internal error: ";
  return what.rfind(prefix, 0) == 0 ? what : std::string(prefix) + what;
}

/// The exception being handled as a diagnostic: the message, the IR dump of an InternalError as
/// a note, and a note that the bug is TileKit's.
Diagnostic internal_error_diagnostic() {
  Diagnostic d{Severity::error, nullptr, {}, "", {}};
  try {
    throw;
  } catch (const InternalError& e) {
    d.message = internal_error_message(e.what());
    if (!e.detail().empty())
      d.note(e.detail());
  } catch (const std::exception& e) {
    d.message = internal_error_message(e.what());
  } catch (...) {
    d.message = "internal error: unknown exception";
  }
  d.note("this is a bug in TileKit, not in your kernel; please report it with the input file");
  return d;
}

} // namespace

int run(const Options& options, std::istream& in, std::ostream& out, std::ostream& err) {
  Reporter reporter(err, options.json_diagnostics);
  std::vector<lower::StageTime> times;
  int code = kInternalError;
  try {
    code = compile(options, in, out, reporter, options.time_stages ? &times : nullptr);
  } catch (...) {
    if (!options.json_diagnostics)
      throw;                                   // guard_internal_errors prints it
    reporter.add(internal_error_diagnostic()); // into the one document, after what came before
  }
  reporter.finish();
  if (options.time_stages && !times.empty()) // --list-stages times nothing
    print_times(times, err);
  return code;
}

int guard_internal_errors(const std::function<int()>& work, std::ostream& err, bool json) {
  try {
    return work();
  } catch (...) {
    Diagnostic d = internal_error_diagnostic();
    if (json) {
      err << nlohmann::ordered_json{{"diagnostics", nlohmann::ordered_json::array({to_json(d)})}}
                 .dump(2)
          << '\n';
      return kInternalError;
    }
    err << "ttgen: " << d.message << '\n';
    for (const Diagnostic& n : d.notes) // the IR dump as it is; the request with the prefix
      err << (&n == &d.notes.back() ? "ttgen: " : "") << n.message << '\n';
  }
  return kInternalError;
}

} // namespace tk::ttgen
