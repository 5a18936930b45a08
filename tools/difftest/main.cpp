// tk-difftest: random differential testing of TileKit's two targets against the reference
// interpreter (docs/difftest.md). Exit codes: 0 every kernel passed, 1 a kernel failed (or the
// generator made one the checker rejects), 2 usage errors.
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tools/difftest/generate.hpp"
#include "tools/difftest/reduce.hpp"
#include "tools/difftest/runner.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using namespace tk::difftest;
namespace fs = std::filesystem;

/// A kernel file written by --out (or by hand, with its run line): the signature from the
/// checked kernel, the run from the `// tk-difftest run:` line.
std::optional<Program> from_file(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot read the file";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  Program p;
  p.source = text.str();
  p.shape = "file";
  if (!parse_run(p.source, p)) {
    error = path + ": no '// tk-difftest run: seed=N DIM=SIZE ... SCALAR=VALUE' line";
    return std::nullopt;
  }
  tk::SourceFile src(path, p.source);
  tk::Diagnostics diags(&src);
  auto module = tk::parser::parse(src, diags);
  if (!module || !tk::dsl::check(*module, diags) || module->kernels.size() != 1) {
    error = diags.str() + path + ": not one checked kernel";
    return std::nullopt;
  }
  const tk::dsl::Kernel& k = module->kernels[0];
  p.name = k.name.name;
  auto dim = [](const tk::dsl::Dim& d) { return d.name ? d.name->name : std::to_string(d.size); };
  auto tensor = [&](const tk::dsl::Param& q) { // [B, rows, cols] or [rows, cols]
    const std::size_t r = q.dims.size() - 2;
    return Tensor{q.name.name, std::string(tk::dsl::to_string(q.dtype)), dim(q.dims[r]),
                  dim(q.dims[r + 1]), r ? dim(q.dims[0]) : ""};
  };
  for (const tk::dsl::Param& q : k.inputs) {
    if (q.is_tensor)
      p.inputs.push_back(tensor(q));
    else
      p.scalars.push_back(q.name.name);
  }
  for (const tk::dsl::Param& q : k.outputs)
    p.outputs.push_back(tensor(q));
  for (const std::string& s : p.scalars)
    if (!p.scalar_values.count(s)) {
      error = path + ": the run line gives no value for scalar '" + s + "'";
      return std::nullopt;
    }
  return p;
}

/// `A..B` into [a, b].
bool parse_seeds(const std::string& s, std::uint64_t& a, std::uint64_t& b) {
  const auto dots = s.find("..");
  if (dots == std::string::npos)
    return false;
  char* end = nullptr;
  a = std::strtoull(s.c_str(), &end, 10);
  if (end != s.c_str() + dots)
    return false;
  b = std::strtoull(s.c_str() + dots + 2, &end, 10);
  return *end == '\0' && dots > 0 && dots + 2 < s.size() && a <= b;
}

const char* status(const Outcome& o) {
  return o.status == Outcome::Status::pass   ? "pass"
         : o.status == Outcome::Status::fail ? "FAIL"
                                             : "INVALID";
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"tk-difftest: runs random valid TileKit kernels on the CPU target and on the TT "
               "emulator and compares every output element with the reference interpreter, "
               "within error bounds derived per target (docs/difftest.md). A failing kernel is "
               "reduced and written to --out as a .tk file that FILE arguments replay.",
               "tk-difftest"};
  std::string seeds = "1..20";
  app.add_option("--seeds", seeds, "Run the kernels of seeds A to B, inclusive")
      ->type_name("A..B")
      ->capture_default_str();
  std::string kinds_text = "classic";
  app.add_option("--kinds", kinds_text,
                 "Which kernels to generate, comma-separated: classic (the map, row, matmul and "
                 "col shapes), sums (long carried sums), reductions (whole-tensor reductions), "
                 "offsets (row statistics of data far from zero mean), triangular (sums and "
                 "products over k in 0 .. i + 1 or 0 .. i), rows (rows of tiles o[d] carried "
                 "across a loop), grouped (batch indices h / 2 shared by groups of heads); new = "
                 "sums,reductions,offsets, all = every kind. A seed's kernel of a kind does not "
                 "depend on the "
                 "other kinds asked for")
      ->type_name("KIND,...")
      ->capture_default_str();
  double seconds = 0;
  app.add_option("--seconds", seconds,
                 "Keep going from seed A past B until this many seconds have passed")
      ->type_name("N");
  std::string work = (fs::temp_directory_path() / "tk-difftest").string();
  app.add_option("--work", work, "Scratch directory: one subdirectory per kernel run")
      ->type_name("DIR")
      ->capture_default_str();
  std::string out = "difftest-failures";
  app.add_option("--out", out, "Where each failing kernel, reduced, is written as k<seed>.tk")
      ->type_name("DIR")
      ->capture_default_str();
  bool no_reduce = false;
  app.add_flag("--no-reduce", no_reduce, "Write failing kernels as generated, unreduced");
  bool keep = false;
  app.add_flag("--keep", keep,
               "Keep every kernel's directory under --work (by default only failing ones stay)");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Print each kernel's source");
  bool bounded = false;
  app.add_flag("--bounded", bounded,
               "Fail a kernel with an output element the interpreter cannot bound (by default "
               "such elements are counted as unbounded, not compared)");
  std::vector<std::string> files;
  app.add_option("files", files,
                 "Replay these kernel files (written by --out) instead of generating kernels")
      ->type_name("FILE.tk");
  CLI11_PARSE(app, argc, argv);

  std::uint64_t first = 0, last = 0;
  if (!parse_seeds(seeds, first, last)) {
    std::cerr << "tk-difftest: --seeds takes A..B with A <= B, e.g. 1..20, not '" << seeds << "'\n";
    return 2;
  }
  const std::optional<std::vector<Kind>> kinds = parse_kinds(kinds_text);
  if (!kinds || kinds->empty()) {
    std::cerr << "tk-difftest: --kinds takes classic, sums, reductions, offsets, triangular, rows, "
                 "grouped, new or all, "
                 "comma-separated, not '"
              << kinds_text << "'\n";
    return 2;
  }
  if (seconds < 0) {
    std::cerr << "tk-difftest: --seconds must not be negative\n";
    return 2;
  }
  if (!std::getenv("TILEKIT_TEMPLATE_DIR"))
    setenv("TILEKIT_TEMPLATE_DIR", TK_DIFFTEST_TEMPLATE_DIR, 1);

  Runner runner(work, keep);
  auto run = [&](const Program& p) {
    Outcome o = runner.run(p);
    if (bounded && o.status == Outcome::Status::pass && o.unbounded > 0) {
      o.status = Outcome::Status::fail;
      o.kind = "unbounded";
      o.detail = "  " + std::to_string(o.unbounded) + " elements have no finite bound\n";
    }
    return o;
  };
  int passed = 0, failed = 0, invalid = 0;
  std::int64_t compared = 0, unbounded = 0;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::map<std::string, int> shapes; // kernels run of each shape
  double worst = 0;                  // the largest error over its bound, every kernel
  auto report = [&](const Program& p, const Outcome& o) {
    ++shapes[p.shape];
    std::printf("%-12s %-6s %-7s %9lld compared %6lld unbounded %5.3f of bound %6.1f s%s%s\n",
                p.name.c_str(), p.shape.c_str(), status(o), static_cast<long long>(o.compared),
                static_cast<long long>(o.unbounded), o.worst, o.seconds, o.kind.empty() ? "" : "  ",
                o.kind.c_str());
    worst = std::max(worst, o.worst);
    if (verbose && !o.worst_at.empty())
      std::printf("  closest to its bound: %s\n", o.worst_at.c_str());
    std::fflush(stdout);
    compared += o.compared;
    unbounded += o.unbounded;
    (o.status == Outcome::Status::pass   ? passed
     : o.status == Outcome::Status::fail ? failed
                                         : invalid)++;
    if (o.status == Outcome::Status::pass)
      return;
    std::printf("%s%s", print(p).c_str(), o.detail.c_str());
    if (o.status == Outcome::Status::invalid || !p.source.empty())
      return;
    Program small = p;
    if (!no_reduce) {
      std::printf("reducing %s ...\n", p.name.c_str());
      std::fflush(stdout);
      small = reduce(
          p,
          [&](const Program& c) {
            const Outcome r = run(c);
            return r.status == Outcome::Status::fail && r.kind == o.kind;
          },
          nullptr);
    }
    fs::create_directories(out);
    const fs::path file = fs::path(out) / (p.name + ".tk");
    std::ofstream(file) << "// " << o.kind << ", found by tk-difftest (seed " << p.input_seed
                        << ")\n"
                        << print(small);
    std::printf("wrote %s:\n%s", file.c_str(), print(small).c_str());
  };

  if (!files.empty()) {
    for (const std::string& f : files) {
      std::string error;
      std::optional<Program> p = from_file(f, error);
      if (!p) {
        std::cerr << "tk-difftest: " << error << "\n";
        return 2;
      }
      report(*p, run(*p));
    }
  } else {
    for (std::uint64_t seed = first; seed <= last || (seconds > 0 && elapsed() < seconds); ++seed) {
      const Program p = generate(seed, *kinds);
      if (verbose)
        std::printf("%s", print(p).c_str());
      report(p, run(p));
      if (seconds > 0 && elapsed() >= seconds)
        break;
    }
  }
  std::printf("tk-difftest: %d kernels, %d passed, %d failed, %d invalid; %lld elements compared, "
              "%lld unbounded; worst %.3f of a bound; %.0f s;",
              passed + failed + invalid, passed, failed, invalid, static_cast<long long>(compared),
              static_cast<long long>(unbounded), worst, elapsed());
  for (const auto& [shape, n] : shapes)
    std::printf(" %s %d", shape.c_str(), n);
  std::printf("\n");
  return failed + invalid == 0 ? 0 : 1;
}
