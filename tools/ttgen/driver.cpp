// ttgen's compilation driver (see driver.hpp).
#include "tools/ttgen/driver.hpp"

#include "dsl/check.hpp"
#include "dsl/print.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "parser/parse.hpp"
#include "support/diagnostics.hpp"
#include "support/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

namespace tk::ttgen {

namespace {

/// The input text, or nullopt after reporting why it cannot be read.
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
    list_stages(options.target, out);
    return kOk;
  }
  std::optional<SourceFile> file = read_input(options.input, in, err);
  if (!file)
    return kUsageError;

  const bool dumps = options.print_after_all || !options.print_after.empty();
  const Emit emit = options.emit.value_or(dumps ? Emit::none : Emit::ast);
  const bool lower = emit == Emit::ir || dumps || options.stop_after;

  lower::PipelineOptions popts;
  popts.stop_after = options.stop_after;
  popts.print_after.insert(options.print_after.begin(), options.print_after.end());
  popts.print_after_all = options.print_after_all;
  popts.verify_each = popts.verify_each || options.verify_each;
  popts.overrides = options.overrides;
  std::ostringstream text;  // dumps, then the emitted result
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
    std::optional<ir::Module> m =
        lower::run_pipeline_from_dump(*file, options.target, popts, diags);
    diags.print(err);
    if (!m || diags.has_errors())
      return kUserError;
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
    break;
  }
  return write_output(options, text.str(), out, err) ? kOk : kUsageError;
}

int guard_internal_errors(const std::function<int()>& work, std::ostream& err) {
  try {
    return work();
  } catch (const InternalError& e) {
    err << "ttgen: internal error: " << e.what() << '\n';
    if (!e.detail().empty())
      err << e.detail() << '\n';
  } catch (const std::exception& e) {
    err << "ttgen: internal error: " << e.what() << '\n';
  } catch (...) {
    err << "ttgen: internal error: unknown exception\n";
  }
  err << "ttgen: this is a bug in TileKit, not in your kernel; please report it with the input "
         "file\n";
  return kInternalError;
}

} // namespace tk::ttgen
