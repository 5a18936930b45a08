// tk-check: `ttgen check` (ttgen execs it, so that ttgen itself never loads LibTooling). Proves the
// kernels of one program free of CB and DST protocol bugs, or reports them (docs/check.md).
// Exit status: 0 proved (warnings say what could not be), 1 a bug found, 2 usage.
#include "check/analyze.hpp"
#include "check/frontend.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

namespace {

std::optional<std::int64_t> number(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? std::optional<std::int64_t>(v)
                                                       : std::nullopt;
}

/// The SDK-mirror headers: the source tree's for a build, else the installed copy beside ttgen.
std::string sdk_include_dir() {
  namespace fs = std::filesystem;
  if (fs::is_directory(TK_CHECK_SOURCE_INCLUDE_DIR))
    return TK_CHECK_SOURCE_INCLUDE_DIR;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path() / TK_CHECK_INSTALLED_INCLUDE_REL).lexically_normal().string();
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"ttgen check: proves the kernels of one TT-Metalium program (reader, compute, "
               "writer; each file's role is recognised from what it calls) free of CB and DST "
               "protocol bugs, on every path, or reports each bug at the call that makes it. "
               "Exit status: 0 proved (a warning says what could not be proved), 1 a bug found, "
               "2 usage.",
               "ttgen check"};
  std::vector<std::string> files, cbs, runtime_args, compile_args;
  tk::check::ParseOptions parse;
  tk::check::CheckOptions check;
  std::map<std::string, std::vector<std::uint32_t>> ct_args; // --compile-args: role or file
  app.add_option("files", files, "The kernel files of one program")->required();
  app.add_option("--cb", cbs,
                 "A circular buffer's size in pages, c_N=PAGES (repeatable): waits and reserves "
                 "are checked against it, and pushes and pops against the exact-wrap rule")
      ->type_name("c_N=PAGES")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--runtime-args", runtime_args,
                 "How many runtime args the host sets for a kernel, ROLE=COUNT with ROLE reader, "
                 "compute or writer (repeatable): every get_arg_val index must be below it")
      ->type_name("ROLE=COUNT")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--compile-args", compile_args,
                 "The compile-time args the host gives a kernel (compile_args of its "
                 "DataMovementConfig or ComputeConfig), ROLE=V0,V1,... with ROLE reader, compute, "
                 "writer or one of the kernel files as given (repeatable): CB indices and counts "
                 "taken from them are then known values, not symbols")
      ->type_name("ROLE=V0,V1,...")
      ->allow_extra_args(false);
  app.add_option("-I", parse.include_dirs,
                 "Search DIR for headers first (e.g. the real SDK's tt_metal/hw/inc)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  app.add_option(
         "--sdk", parse.sdk_root,
         "Check against the real headers of the tt-metal source tree DIR (its "
         "tt_metal/api, tt_metal/hw, tt-llk), with the include list, defines and RV32 target "
         "the SDK's JIT gives a kernel of --arch, instead of TileKit's SDK mirror; a compute "
         "kernel is checked against the mirror, with a note (its LLK headers need the SFPI "
         "toolchain's sfpi.h)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  app.add_option("-D", parse.defines, "Define a macro, NAME or NAME=VALUE")
      ->type_name("NAME")
      ->allow_extra_args(false);
  std::string arch_name(tk::arch::default_arch().name);
  app.add_option("--arch", arch_name,
                 "The architecture whose kernel build is checked (" + tk::arch::names() +
                     "): its firmware define, DRAM bank count and DST capacity (docs/arch.md)")
      ->type_name("NAME")
      ->capture_default_str()
      ->allow_extra_args(false);
  app.add_flag("--fp32-dest-acc", check.fp32_dest,
               "DST holds fp32 (ComputeConfig::fp32_dest_acc_en): half the tiles");
  try {
    app.parse(argc, argv);
    for (const std::string& c : cbs) {
      const auto eq = c.find('=');
      std::optional<std::int64_t> index = c.rfind("c_", 0) == 0 && eq != std::string::npos
                                              ? number(std::string_view(c).substr(2, eq - 2))
                                              : std::nullopt;
      std::optional<std::int64_t> pages =
          eq == std::string::npos ? std::nullopt : number(std::string_view(c).substr(eq + 1));
      if (!index || !pages || *index < 0 || *index >= 32 || *pages < 1)
        throw CLI::ValidationError("--cb", "'" + c +
                                               "' is not c_N=PAGES with N 0 to 31 and "
                                               "PAGES at least 1, e.g. c_0=2");
      check.cb_pages[*index] = *pages;
    }
    for (const std::string& r : runtime_args) {
      const auto eq = r.find('=');
      const std::string role = r.substr(0, eq);
      std::optional<std::int64_t> n =
          eq == std::string::npos ? std::nullopt : number(std::string_view(r).substr(eq + 1));
      const std::pair<const char*, tk::check::Role> roles[] = {
          {"reader", tk::check::Role::reader},
          {"compute", tk::check::Role::compute},
          {"writer", tk::check::Role::writer}};
      bool ok = false;
      for (const auto& [name, value] : roles)
        if (role == name && n && *n >= 0) {
          check.runtime_args[value] = *n;
          ok = true;
        }
      if (!ok)
        throw CLI::ValidationError("--runtime-args", "'" + r +
                                                         "' is not ROLE=COUNT with ROLE reader, "
                                                         "compute or writer, e.g. reader=4");
    }
    const tk::arch::ArchSpec* a = tk::arch::find(arch_name);
    if (!a)
      throw CLI::ValidationError("--arch", "'" + arch_name +
                                               "' is not an architecture; the known "
                                               "ones are " +
                                               tk::arch::names());
    // The include list, defines and target follow the architecture (check/jit.cpp, arch/'s
    // jit_*), with or without --sdk.
    parse.arch = check.arch = a;
    for (const std::string& c : compile_args) {
      const auto eq = c.find('=');
      std::vector<std::uint32_t> values;
      bool ok = eq != std::string::npos && eq > 0;
      for (std::size_t at = eq + 1; ok && at <= c.size() && eq + 1 < c.size();) {
        const std::size_t end = std::min(c.find(',', at), c.size());
        const std::optional<std::int64_t> v = number(std::string_view(c).substr(at, end - at));
        ok = v && *v >= 0 && *v <= 0xffffffffll;
        if (ok)
          values.push_back(static_cast<std::uint32_t>(*v));
        at = end + 1;
      }
      if (!ok)
        throw CLI::ValidationError("--compile-args",
                                   "'" + c +
                                       "' is not ROLE=V0,V1,... with ROLE reader, compute, writer "
                                       "or a kernel file and each V a 32-bit unsigned number");
      ct_args[c.substr(0, eq)] = values;
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ttgen check: error: " << e.what() << "\nrun 'ttgen check --help' for usage\n";
    return 2;
  }
  parse.sdk_include_dir = sdk_include_dir();
  parse.clang_resource_dir = TK_CHECK_CLANG_RESOURCE_DIR;
  parse.fp32_dest_acc = check.fp32_dest;

  std::vector<tk::check::Kernel> kernels;
  std::set<std::string> used_ct_args;
  for (const std::string& f : files) {
    if (std::ifstream probe(f); !probe || std::filesystem::is_directory(f)) {
      std::cerr << "ttgen check: error: cannot open '" << f
                << "': " << (probe ? "is a directory" : std::strerror(errno)) << '\n';
      return 2;
    }
    std::string errors;
    std::optional<tk::check::Kernel> k = tk::check::summarize(f, parse, errors);
    if (!k) {
      std::cerr << errors << (errors.empty() || errors.back() == '\n' ? "" : "\n")
                << "ttgen check: error: cannot check '" << f << "': it does not compile\n";
      return 2;
    }
    // The host's compile-time args for this kernel: by its file, else by its role (known only
    // once it is parsed, so it is parsed again with them).
    auto it = ct_args.find(f);
    if (it == ct_args.end())
      it = ct_args.find(tk::check::to_string(k->role));
    if (it != ct_args.end()) {
      used_ct_args.insert(it->first);
      tk::check::ParseOptions with = parse;
      with.compile_args = it->second;
      k = tk::check::summarize(f, with, errors);
      if (!k) {
        std::cerr << errors << (errors.empty() || errors.back() == '\n' ? "" : "\n")
                  << "ttgen check: error: cannot check '" << f << "' with --compile-args "
                  << it->first << ": it does not compile\n";
        return 2;
      }
    }
    kernels.push_back(std::move(*k));
  }
  for (const auto& [key, values] : ct_args) {
    if (!used_ct_args.count(key)) {
      const bool role = key == "reader" || key == "compute" || key == "writer";
      std::cerr << "ttgen check: error: --compile-args " << key << "=...: "
                << (role ? "no kernel given is the " + key +
                               " (a kernel's role is recognised from what it calls)"
                         : "'" + key + "' is not one of the kernel files given")
                << '\n';
      return 2;
    }
  }
  for (const tk::check::Kernel& k : kernels)
    if (!k.note.empty())
      std::cerr << "note: " << k.note << '\n';
  tk::Diagnostics diags(nullptr, 100);
  std::vector<std::string> proved;
  tk::check::analyze(kernels, check, diags, proved);
  diags.print(std::cerr);
  for (const tk::check::Kernel& k : kernels)
    std::cout << k.file->name() << ": " << tk::check::to_string(k.role) << '\n';
  for (const std::string& p : proved)
    std::cout << p << '\n';
  std::size_t warnings = diags.all().size() - diags.error_count();
  if (diags.has_errors()) {
    const std::size_t n = diags.error_count();
    std::cout << "ttgen check: " << n << (n == 1 ? " bug" : " bugs") << " found\n";
    return 1;
  }
  std::cout << "ttgen check: proved"
            << (warnings ? " what it could; " + std::to_string(warnings) +
                               (warnings == 1 ? " warning says" : " warnings say") + " what not"
                         : ": no CB or DST protocol bug on any path")
            << '\n';
  return 0;
}
