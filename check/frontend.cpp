// ttgen check's front end (frontend.hpp): the translation unit, include list and defines the
// SDK's JIT builds around a kernel, parsed with Clang LibTooling; its kernel_main is then walked
// by walk.cpp and the kernel's role found from what it calls.
#include "check/frontend.hpp"

#include "check/walk.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

namespace tk::check {

namespace {

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

std::optional<Kernel> summarize(const std::string& path, const ParseOptions& options,
                                std::string& errors) {
  namespace fs = std::filesystem;
  Kernel k;
  k.file = std::make_unique<SourceFile>(path, read_text(path));
  // A compute kernel includes the compute API (api/compute/...) or a compute helper library
  // (TTNN's kernel_lib/*_compute.hpp), or starts the compute hardware.
  static const std::regex compute_include(R"re(#\s*include\s*["<][^">]*compute[^">]*[">])re");
  const bool compute = contains(k.file->text(), "api/compute/") ||
                       contains(k.file->text(), "compute_kernel_hw_startup(") ||
                       std::regex_search(k.file->text(), compute_include);
  const std::string abs = fs::absolute(path).lexically_normal().string();
  // Under --sdk a compute kernel is parsed against the mirror: the tree's LLK headers include
  // sfpi.h, which ships with the SFPI toolchain (not with the tt-metal tree) and is written for
  // its GCC alone (docs/check.md, "--sdk on compute kernels"). Its CB and DST protocol is the
  // same calls, so the proof is the mirror's; the note says so, never silently.
  if (compute && !options.sdk_root.empty()) {
    ParseOptions mirror = options;
    mirror.sdk_root.clear();
    std::optional<Kernel> on_mirror = summarize(path, mirror, errors);
    if (on_mirror)
      on_mirror->note = path + ": checked against TileKit's mirror of the compute API: the LLK "
                               "headers of --sdk include sfpi.h, which ships with the SFPI "
                               "toolchain, not with the tt-metal tree";
    return on_mirror;
  }

  // As given, so that the compiler's messages name the file as the user did. The --sdk build's
  // generated kernel_includes.hpp lives in a directory of its own, as the JIT's does
  // (tt_metal/jit_build/genfiles.cpp, get_kernel_source_to_include, writes it into its output
  // directory), where a relative name would not resolve: it includes the absolute one.
  const std::string include = fs::path(path).is_absolute() ? abs : path;
  // With --sdk the real headers define the CB descriptor arrays (from the generated
  // chlkc_descriptors.h, mapped in below), so the wrapper only includes: as the firmware build of
  // a data-movement kernel (the only kind parsed against --sdk, above), ncrisck.cc, which includes
  // the generated kernel_includes.hpp.
  const std::string code =
      options.sdk_root.empty()
          ? jit_translation_unit(include, compute, options.fp32_dest_acc, *options.arch)
          : "#include \"ncrisck.cc\"\n";
  std::vector<std::string> args = {"-std=c++17", "-fsyntax-only", "-Wno-everything",
                                   "-resource-dir", options.clang_resource_dir};
  for (const std::string& dir : options.include_dirs)
    args.push_back("-I" + dir);
  if (options.sdk_root.empty()) {
    args.push_back("-I" + options.sdk_include_dir);
  } else {
    // The real headers are written for a 32-bit RISC-V core (check/jit.cpp).
    for (const std::string& a : sdk_jit_target_args())
      args.push_back(a);
    args.push_back(std::string("-I") + kSdkGeneratedDir);
    for (const std::string& dir : sdk_jit_includes(options.sdk_root, *options.arch))
      args.push_back("-I" + dir);
    for (const std::string& d : sdk_jit_defines(*options.arch))
      args.push_back("-D" + d);
    // The map the JIT defines for named compile-time args (build.cpp), with every name the kernel
    // asks for and a placeholder value: ttgen check makes what depends on one a symbol.
    static const std::regex named_arg(R"re(get_named_compile_time_arg_val\s*\(\s*"([^"]+)")re");
    std::string map;
    std::set<std::string> seen;
    for (auto it = std::sregex_iterator(k.file->text().begin(), k.file->text().end(), named_arg);
         it != std::sregex_iterator(); ++it)
      if (seen.insert((*it)[1].str()).second)
        map += (map.empty() ? "{\"" : ",{\"") + (*it)[1].str() + "\",1}";
    if (!map.empty())
      args.push_back("-DKERNEL_COMPILE_TIME_ARG_MAP=" + map);
  }
  for (const std::string& d : jit_defines(compute, *options.arch, options.compile_args))
    args.push_back("-D" + d);
  for (const std::string& d : options.defines)
    args.push_back("-D" + d);

  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  auto diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(diag_os, diag_opts.get());
  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      code, args, "tk_check_wrapper.cpp", "ttgen-check",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(),
      options.sdk_root.empty()
          ? clang::tooling::FileContentMappings()
          : clang::tooling::FileContentMappings{{std::string(kSdkGeneratedDir) +
                                                     "/chlkc_descriptors.h",
                                                 sdk_chlkc_descriptors(*options.arch)},
                                                // glibc's gnu/stubs.h includes it for a 32-bit
                                                // word (the RV32 target); it only lists
                                                // unimplemented functions (__stub_*), and Debian
                                                // ships it with the i386 multilib alone.
                                                {std::string(kSdkGeneratedDir) + "/gnu/stubs-32.h",
                                                 ""},
                                                {std::string(kSdkGeneratedDir) +
                                                     "/kernel_includes.hpp",
                                                 "#include \"" + abs + "\"\n"}},
      &printer);
  diag_os.flush();
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) {
    errors = diag_text.empty() ? "does not compile" : diag_text;
    return std::nullopt;
  }

  clang::ASTContext& ctx = ast->getASTContext();
  clang::SourceManager& sm = ctx.getSourceManager();
  const clang::FunctionDecl* main_fn = nullptr;
  for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls())
    if (const auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
        f && f->getNameAsString() == "kernel_main" && f->hasBody() &&
        fs::absolute(sm.getFilename(sm.getExpansionLoc(f->getLocation())).str())
                .lexically_normal() == fs::path(abs))
      main_fn = f;
  if (!main_fn) {
    errors = path + ": no kernel_main() defined in the file";
    return std::nullopt;
  }
  // The SDK's own headers, whose calls are modelled or opaque, never followed.
  std::vector<std::string> sdk_dirs;
  const auto dir = [](const std::string& d) {
    std::string s = fs::absolute(d).lexically_normal().string();
    return s.empty() || s.back() != '/' ? s + "/" : s;
  };
  sdk_dirs.push_back(dir(options.sdk_include_dir));
  if (!options.sdk_root.empty())
    sdk_dirs.push_back(dir(options.sdk_root + "/tt_metal"));
  walk_kernel_main(ctx, sm.getFileID(sm.getExpansionLoc(main_fn->getLocation())), k,
                   options.compile_args.has_value(), sdk_dirs, *main_fn);

  // The role, from what the kernel does.
  bool pushes = false, pops = false, dst = false; // pushes: or reserves; pops: or waits
  std::function<void(const Body&)> scan = [&](const Body& b) {
    for (const Node& n : b) {
      if (const Event* e = std::get_if<Event>(&n.v)) {
        pushes |= e->kind == EventKind::push || e->kind == EventKind::reserve;
        pops |= e->kind == EventKind::pop || e->kind == EventKind::wait;
        dst |= e->kind == EventKind::acquire || e->kind == EventKind::math ||
               e->kind == EventKind::pack;
      } else if (const Loop* l = std::get_if<Loop>(&n.v)) {
        scan(l->body);
      } else if (const Branch* br = std::get_if<Branch>(&n.v)) {
        scan(br->then_body);
        scan(br->else_body);
      }
    }
  };
  scan(k.body);
  k.role = compute || dst ? Role::compute : pushes || !pops ? Role::reader : Role::writer;
  return k;
}

} // namespace tk::check
