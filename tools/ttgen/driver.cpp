// ttgen's compilation driver (see driver.hpp).
#include "tools/ttgen/driver.hpp"

#include "dsl/check.hpp"
#include "dsl/print.hpp"
#include "parser/parse.hpp"
#include "support/diagnostics.hpp"
#include "support/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
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

} // namespace

int run(const Options& options, std::istream& in, std::ostream& out, std::ostream& err) {
  std::optional<SourceFile> file = read_input(options.input, in, err);
  if (!file)
    return kUsageError;

  Diagnostics diags(&*file);
  std::optional<dsl::Module> module = parser::parse(*file, diags);
  if (module)
    dsl::check(*module, diags);
  diags.print(err);
  if (!module || diags.has_errors())
    return kUserError;

  std::string text;
  switch (options.emit) {
  case Emit::ast:
    text = dsl::print(*module);
    break;
  }
  return write_output(options, text, out, err) ? kOk : kUsageError;
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
