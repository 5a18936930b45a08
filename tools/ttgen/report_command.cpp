#include "tools/ttgen/report_command.hpp"

#include "dsl/check.hpp"
#include "lowering/ir/reader.hpp"
#include "parser/parse.hpp"
#include "report/choices.hpp"
#include "report/format.hpp"
#include "support/diagnostics.hpp"
#include "tools/ttgen/driver.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>

namespace tk::ttgen {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// The --shape items as a map; nullopt after reporting a malformed or repeated one.
std::optional<report::Shape> parse_shape(const std::vector<std::string>& items, std::ostream& err) {
  std::vector<std::string> split; // one flag may hold several: M=1024,N=512
  for (const std::string& group : items)
    for (std::size_t at = 0; at <= group.size();) {
      const std::size_t comma = std::min(group.find(',', at), group.size());
      split.push_back(group.substr(at, comma - at));
      at = comma + 1;
    }
  report::Shape shape;
  for (const std::string& item : split) {
    const auto eq = item.find('=');
    std::int64_t size = 0;
    const char* end = item.data() + item.size();
    auto [ptr, ec] = eq == std::string::npos
                         ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                         : std::from_chars(item.data() + eq + 1, end, size);
    if (eq == 0 || eq == std::string::npos || ec != std::errc() || ptr != end) {
      err << "ttgen: error: --shape: '" << item
          << "' is not NAME=SIZE; write the size of each dimension, e.g. --shape M=1024,N=512\n";
      return std::nullopt;
    }
    const std::string name = item.substr(0, eq);
    if (size <= 0) {
      err << "ttgen: error: --shape: " << item << ": a dimension holds at least one element\n";
      return std::nullopt;
    }
    if (!shape.emplace(name, size).second) {
      err << "ttgen: error: --shape: dimension '" << name << "' is given twice\n";
      return std::nullopt;
    }
  }
  return shape;
}

/// The module lowered through the TT chain, from a .tk file or a dump; nullopt after reporting
/// errors in the input.
std::optional<ir::Module> lower_tt(const SourceFile& file, const ReportOptions& options,
                                   std::ostream& err) {
  lower::PipelineOptions popts;
  popts.overrides = options.overrides;
  Diagnostics diags(&file);
  std::optional<ir::Module> m;
  if (ir::read_stage_header(file.text())) {
    m = lower::run_pipeline_from_dump(file, lower::Target::tt, popts, diags);
  } else {
    std::optional<dsl::Module> module = parser::parse(file, diags);
    if (module)
      dsl::check(*module, diags);
    if (module && !diags.has_errors())
      m = lower::run_pipeline(*module, lower::Target::tt, popts, diags);
  }
  diags.print(err);
  if (!m || diags.has_errors())
    return std::nullopt;
  return m;
}

} // namespace

int run_report(const ReportOptions& options, std::istream& in, std::ostream& out,
               std::ostream& err) {
  std::optional<report::Shape> shape = parse_shape(options.shape, err);
  if (!shape)
    return kUsageError;
  Reporter reporter(err, false);
  std::optional<SourceFile> file = read_input(options.input, in, reporter);
  reporter.finish();
  if (!file)
    return kUsageError;
  std::optional<ir::Module> m = lower_tt(*file, options, err);
  if (!m)
    return kUserError;
  const ir::Module whole = *m; // the programs a materialised kernel launches after its first
  if (options.kernel) {        // --kernel=NAME: that kernel alone
    std::vector<std::string> names;
    for (const ir::Program& p : m->programs)
      names.push_back(p.name);
    std::erase_if(m->programs, [&](const ir::Program& p) { return p.name != *options.kernel; });
    if (m->programs.empty()) {
      err << "ttgen: error: --kernel: no kernel '" << *options.kernel << "' in '" << file->name()
          << "'" << (names.empty() ? std::string() : "; its kernels are " + join(names)) << '\n';
      return kUsageError;
    }
  }

  // Every dimension of every kernel must be given, and nothing else.
  std::set<std::string, std::less<>> known;
  for (const ir::Program& p : m->programs) {
    std::vector<std::string> dims = report::dimension_names(p), missing;
    known.insert(dims.begin(), dims.end());
    for (const std::string& d : dims)
      if (!shape->count(d))
        missing.push_back(d);
    if (!missing.empty()) {
      err << "ttgen: error: --shape lacks " << join(missing) << ": kernel '" << p.name
          << "' has dimensions " << join(dims) << '\n';
      return kUsageError;
    }
  }
  // Rows and columns are tiled; a leading (batch) dimension counts whole matrices.
  std::set<std::string, std::less<>> tiled;
  for (const ir::Program& p : m->programs)
    for (const ir::Tensor& t : p.tensors)
      for (std::size_t k = t.dims.size() >= 2 ? t.dims.size() - 2 : 0; k < t.dims.size(); ++k)
        tiled.insert(t.dims[k].name);
  for (const auto& [name, size] : *shape)
    if (tiled.count(name) && size % 32 != 0) {
      err << "ttgen: error: --shape: " << name << "=" << size
          << ": a row or column dimension is a multiple of 32 (tiles are 32x32)\n";
      return kUsageError;
    }
  for (const auto& [name, size] : *shape)
    if (!known.count(name)) {
      err << "ttgen: error: --shape: '" << name << "' is not a dimension of any kernel in '"
          << file->name() << "' ("
          << (known.empty() ? std::string("it has none")
                            : "its dimensions: " + join({known.begin(), known.end()}))
          << ")\n";
      return kUsageError;
    }

  // The materialise stage's choices, each alternative priced at the shape: the kernel lowered
  // again the other way (by request) prices the alternative the stage did not choose.
  auto named = [](const ir::Module& mod, const std::string& name) -> const ir::Program* {
    for (const ir::Program& q : mod.programs)
      if (q.name == name)
        return &q;
    return nullptr;
  };
  auto next_of = [&](const ir::Module& mod, const ir::Program& p) -> const ir::Program* {
    return p.combine.empty() ? nullptr : named(mod, p.combine);
  };
  std::map<std::string, report::Choice> choices;
  std::map<std::string, ir::Module> again_by; // the whole module lowered by each request
  for (const ir::Program& p : m->programs) {
    if (!p.materialise)
      continue;
    const bool dram = p.materialise->choice == ir::Materialise::Choice::dram;
    const std::string other = dram ? "recompute" : "dram";
    if (!again_by.count(other)) {
      ReportOptions again = options;
      again.overrides.materialise = other;
      std::optional<ir::Module> alt = lower_tt(*file, again, err);
      if (!alt)
        return kUserError;
      again_by.emplace(other, std::move(*alt));
    }
    const ir::Module& alt = again_by.at(other);
    // From a dump past materialise the kernel keeps the form it was given: the other is not priced.
    const ir::Program* as_other = named(alt, p.name);
    if (as_other && as_other->materialise && as_other->materialise->choice == p.materialise->choice)
      as_other = nullptr;
    const ir::Program* first = dram ? &p : as_other;
    const ir::Program* second = first ? next_of(dram ? whole : alt, *first) : nullptr;
    choices.emplace(p.name, report::materialise_choice(*p.materialise, p.name, first, second,
                                                       dram ? as_other : &p, *shape));
  }

  if (options.format == "json") {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const ir::Program& p : m->programs) {
      all.push_back(report::to_json(report::estimate(p, *shape)));
      if (auto it = choices.find(p.name); it != choices.end())
        all.back()["materialise"] = report::to_json(it->second);
    }
    out << all.dump(2) << '\n';
    return kOk;
  }
  bool first = true;
  for (const ir::Program& p : m->programs) {
    out << (first ? "" : "\n") << report::format_text(report::estimate(p, *shape));
    first = false;
  }
  for (const auto& [name, c] : choices)
    out << '\n' << report::format_text(c);
  return kOk;
}

} // namespace tk::ttgen
