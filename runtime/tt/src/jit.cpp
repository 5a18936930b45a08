// Kernel JIT: wraps a kernel source so that kernel_main has a unique exported entry, compiles it
// with the C++ compiler CMake used into a shared object, and caches it on disk under a hash of the
// source, the headers it includes, the emulator's header set and the flags.
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "state.hpp"
#include "tk_emulator/chlkc_descriptors.hpp"

extern char** environ;

namespace tk::rt::emu {
namespace fs = std::filesystem;
namespace {
std::atomic<std::uint64_t> g_compiled{0}, g_disk_hits{0}, g_memory_hits{0};
std::mutex g_mutex;
std::map<std::string, std::pair<void*, EntryFn>> g_loaded;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two independent 64-bit FNV-1a streams: a 128-bit key is plenty for a cache.
struct Hasher {
  std::uint64_t a = 14695981039346656037ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 1099511628211ull;
      b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    a = (a ^ 0xff) * 1099511628211ull; // field separator
  }
  std::string str() const {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buf;
  }
};

// The SDK-mirror headers kernels compile against: $TT_METAL_EMULATOR_INCLUDE_DIR, else the
// installed copy next to this shared library (an install need not keep the source tree), else
// the source tree this library was built from.
const std::string& emulator_include_dir() {
  static const std::string dir = [] {
    if (const char* e = std::getenv("TT_METAL_EMULATOR_INCLUDE_DIR"); e != nullptr && *e != '\0')
      return std::string(e);
    static const int anchor = 0;
    Dl_info info{};
    if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr) {
      const fs::path installed =
          fs::path(info.dli_fname).parent_path() / TK_EMULATOR_INSTALLED_INCLUDE_REL;
      std::error_code ec;
      if (fs::is_directory(installed / "api", ec))
        return fs::weakly_canonical(installed, ec).string();
    }
    return std::string(TK_EMULATOR_INCLUDE_DIR);
  }();
  return dir;
}

const std::string& header_set_hash() {
  static const std::string hash = [] {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(emulator_include_dir())) {
      if (e.is_regular_file())
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    Hasher h;
    for (const auto& f : files) {
      h.add(f.string());
      h.add(read_file(f));
    }
    return h.str();
  }();
  return hash;
}

// Hashes the quoted includes the kernel pulls from its own directory tree (recursively).
void hash_local_includes(const fs::path& file, Hasher& h, std::set<fs::path>& seen, int depth) {
  if (depth > 16)
    return;
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::istringstream src(read_file(file));
  std::string line;
  std::smatch m;
  while (std::getline(src, line)) {
    if (!std::regex_search(line, m, include_re))
      continue;
    const fs::path dep = file.parent_path() / m[1].str();
    std::error_code ec;
    if (!fs::is_regular_file(dep, ec))
      continue; // an emulator header, covered by header_set_hash()
    const fs::path canon = fs::weakly_canonical(dep, ec);
    if (!seen.insert(canon).second)
      continue;
    h.add(canon.string());
    h.add(read_file(canon));
    hash_local_includes(canon, h, seen, depth + 1);
  }
}

fs::path resolve_kernel_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec))
    return fs::absolute(path);
  for (const char* var : {"TT_METAL_KERNEL_PATH", "TT_METAL_HOME"}) {
    const char* root = std::getenv(var);
    if (root != nullptr && fs::is_regular_file(fs::path(root) / path, ec))
      return fs::absolute(fs::path(root) / path);
  }
  throw EmulatorError(
      path + ": kernel file not found (relative paths are tried against the current directory, "
             "$TT_METAL_KERNEL_PATH and $TT_METAL_HOME)");
}

std::string compiler() {
  const char* env = std::getenv("TT_METAL_EMULATOR_CXX");
  return env != nullptr && *env != '\0' ? env : TK_EMULATOR_CXX;
}

std::vector<std::string> flags(const KernelRecord& k) {
  std::vector<std::string> f = {"-std=c++17",
                                "-O2",
                                "-fPIC",
                                "-shared",
                                "-fvisibility=hidden",
                                "-Wno-deprecated-declarations",
                                "-DKERNEL_BUILD",
                                "-DTENSIX_FIRMWARE",
                                "-D" + std::string(active_device().arch.firmware_define),
                                "-DNUM_DRAM_BANKS=" +
                                    std::to_string(active_device().arch.dram_banks),
                                "-DNOC_MODE=0",
                                std::string("-I") + emulator_include_dir()};
  const auto& args = k.compute ? k.cc.compile_args : k.dm.compile_args;
  std::string cta = "-DKERNEL_COMPILE_TIME_ARGS=";
  for (std::size_t i = 0; i < args.size(); ++i)
    cta += (i ? "," : "") + std::to_string(args[i]);
  f.push_back(cta);
  if (k.compute) {
    f.push_back("-DCOMPILE_FOR_TRISC=1");
    f.push_back("-DNOC_INDEX=0");
  } else {
    f.push_back(k.dm.processor == tt::tt_metal::DataMovementProcessor::RISCV_0
                    ? "-DCOMPILE_FOR_BRISC"
                    : "-DCOMPILE_FOR_NCRISC");
    f.push_back("-DNOC_INDEX=" + std::to_string(static_cast<int>(k.dm.noc)));
  }
  for (const auto& [name, value] : k.compute ? k.cc.defines : k.dm.defines)
    f.push_back("-D" + name + "=" + value);
  // Named compile-time args as tt-metal's JIT passes them (tt_metal/jit_build/build.cpp):
  // -DKERNEL_COMPILE_TIME_ARG_MAP={"name",value}, ... read by get_named_compile_time_arg_val.
  // Sorted by name, so that the flags (part of the cache key) do not depend on hashing order.
  const auto& named = k.compute ? k.cc.named_compile_args : k.dm.named_compile_args;
  if (!named.empty()) {
    std::map<std::string, std::uint32_t> sorted(named.begin(), named.end());
    std::string map = "-DKERNEL_COMPILE_TIME_ARG_MAP=";
    for (const auto& [name, value] : sorted)
      map += "{\"" + name + "\"," + std::to_string(value) + "}, ";
    f.push_back(map);
  }
  // A kernel runs inside the host process, on a fiber of this library. When this library is
  // built with sanitizers (the asan preset: TK_EMULATOR_KERNEL_SANITIZE holds its -fsanitize
  // flags), kernels get the same flags: their out-of-bounds accesses and UB are reported like the
  // host's, and the runtimes they need are already loaded, first, by the sanitized host. Otherwise
  // they get none: an unsanitized host cannot load an ASan-instrumented object. The flags are
  // part of the cache key, so the two kinds of object never mix in one cache.
  std::istringstream sanitize(TK_EMULATOR_KERNEL_SANITIZE);
  for (std::string flag; sanitize >> flag;)
    f.push_back(flag);
  return f;
}

// The wrapper TU: CB descriptors like the SDK's chlkc_descriptors.h, then the kernel, then the
// entry.
std::string wrapper(const KernelRecord& k, const CoreState& core, const fs::path& source) {
  std::string w = "// Generated by the TileKit emulator for " + k.path +
                  "\n#include <cstdint>\n#define DATA_FORMATS_DEFINED 1\n";
  // The SDK's generated chlkc_descriptors.h (tk_emulator/chlkc_descriptors.hpp).
  // genfiles.cpp sizes the descriptor arrays by the architecture's CB count.
  std::vector<CbDescriptor> cbs(active_device().arch.num_circular_buffers);
  for (std::uint32_t i = 0; i < cbs.size(); ++i)
    if (const CbState& cb = core.cbs[i]; cb.configured)
      cbs[i] = {static_cast<std::uint8_t>(cb.format), tt::tile_size(cb.format)};
  w += chlkc_descriptors(cbs, k.compute, k.cc.fp32_dest_acc_en, k.cc.dst_full_sync_en,
                         static_cast<int>(k.cc.math_fidelity), k.cc.math_approx_mode);
  // The firmware build includes the dataflow API before a data-movement kernel
  // (tt_metal/hw/firmware/src/tt-1xx/brisck.cc and ncrisck.cc), so shipped kernels may use it
  // without including it.
  w += k.compute ? "#include \"api/compute/common.h\"\nusing namespace ckernel;\n"
                 : "#include \"api/dataflow/dataflow_api.h\"\n";
  w += "#include \"" + source.string() + "\"\n";
  w += "extern \"C\" __attribute__((visibility(\"default\"))) void tk_emu_kernel_entry() { "
       "kernel_main(); }\n";
  return w;
}

// Runs the compiler; returns its exit status and combined output.
std::pair<int, std::string> run_compiler(const std::vector<std::string>& argv,
                                         const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Plain ASCII diagnostics, independent of the user's locale.
  std::vector<std::string> env_store = {"LC_ALL=C"};
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LC_ALL=", 7) != 0)
      env_store.emplace_back(*e);
  }
  std::vector<char*> env;
  for (auto& e : env_store)
    env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return {-1, "cannot run " + argv[0] + ": " + std::strerror(rc)};
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(log)};
}
} // namespace

std::string kernel_cache_dir() {
  if (const char* d = std::getenv("TT_METAL_EMULATOR_CACHE_DIR"); d != nullptr && *d != '\0')
    return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
    return std::string(x) + "/tilekit/kernels";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/tmp") + "/.cache/tilekit/kernels";
}

JitStats jit_stats() {
  return {g_compiled.load(), g_disk_hits.load(), g_memory_hits.load()};
}

void forget_loaded_kernels() {
  std::lock_guard lock(g_mutex);
  for (auto& [key, entry] : g_loaded)
    dlclose(entry.first);
  g_loaded.clear();
}

EntryFn load_kernel(const KernelRecord& k, const CoreState& core) {
  const fs::path source = resolve_kernel_path(k.path);
  const std::string text = wrapper(k, core, source);
  std::vector<std::string> argv = flags(k);
  argv.insert(argv.begin(), compiler());
  Hasher h;
  for (const auto& a : argv)
    h.add(a);
  h.add(text);
  h.add(read_file(source));
  h.add(header_set_hash());
  std::set<fs::path> seen;
  hash_local_includes(source, h, seen, 0);
  const std::string key = h.str();
  {
    std::lock_guard lock(g_mutex);
    if (auto it = g_loaded.find(key); it != g_loaded.end()) {
      ++g_memory_hits;
      return it->second.second;
    }
  }
  const fs::path dir = fs::path(kernel_cache_dir()) / key;
  const fs::path so = dir / "kernel.so";
  std::error_code ec;
  if (fs::is_regular_file(so, ec)) {
    ++g_disk_hits;
  } else {
    static std::atomic<int> counter{0};
    const fs::path tmp =
        dir.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
    fs::create_directories(tmp);
    std::ofstream(tmp / "kernel.cpp") << text;
    std::vector<std::string> cmd = argv;
    cmd.insert(cmd.end(), {(tmp / "kernel.cpp").string(), "-o", (tmp / "kernel.so").string()});
    // The command, one argument a line, beside what it built: what a kernel was compiled with
    // (its compile-time args and defines; scripts/sdk_examples.sh hands them to ttgen check).
    {
      std::ofstream out(tmp / "compile.cmd");
      for (const std::string& a : argv)
        out << a << '\n';
    }
    const auto [status, output] = run_compiler(cmd, tmp / "compile.log");
    if (status != 0) {
      fs::remove_all(tmp, ec);
      throw EmulatorError(k.path + ": kernel compilation failed (" + source.string() + ")\n" +
                          output);
    }
    ++g_compiled;
    fs::rename(tmp, dir, ec); // another process may have won the race; either copy is the same
    if (ec)
      fs::remove_all(tmp, ec);
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    throw EmulatorError(k.path + ": cannot load " + so.string() + ": " + dlerror());
  auto entry = reinterpret_cast<EntryFn>(dlsym(handle, "tk_emu_kernel_entry"));
  if (entry == nullptr)
    throw EmulatorError(k.path + ": " + so.string() + " has no kernel entry");
  std::lock_guard lock(g_mutex);
  auto [it, inserted] = g_loaded.emplace(key, std::make_pair(handle, entry));
  if (!inserted)
    dlclose(handle);
  return it->second.second;
}
} // namespace tk::rt::emu
