#include "report/choices.hpp"

#include "lowering/tt/target.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

namespace tk::report {

namespace {

std::string attr(const ir::Program& p, const char* key) {
  auto it = p.attrs.find(key);
  const auto* s = it == p.attrs.end() ? nullptr : std::get_if<std::string>(&it->second.value);
  if (!s)
    throw tk::InternalError("internal error: report: program '" + p.name + "' lacks attribute '" +
                            key + "'");
  return *s;
}

void add(Alternative& a, const Estimate& e) {
  a.matmul_tiles += e.matmul_tiles;
  a.dram_bytes_read += e.dram_bytes_read;
  a.dram_bytes_written += e.dram_bytes_written;
  a.bound_cycles += e.bound_cycles();
  a.bound_us += e.bound_cycles() * 1e-3 / e.clock_ghz;
}

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0)
      out += ',';
    out += digits[k];
  }
  return out;
}

} // namespace

Choice materialise_choice(const ir::Program& first, const ir::Program& second,
                          const ir::Program* recomputed, const Shape& shape) {
  Choice c;
  c.kernel = first.name;
  c.value = attr(first, "materialise_value");
  c.tensor = attr(first, "materialise_tensor");
  c.why = attr(first, "materialise_why");
  const std::string chosen = attr(first, "materialise");

  Alternative re{"recompute", chosen == "recompute", recomputed != nullptr};
  if (recomputed) {
    add(re, estimate(*recomputed, shape));
    re.note = "the kernel as written: every work item recomputes its hidden tiles";
  } else {
    re.note = "not priced: the input is an IR dump past the materialise stage";
  }

  // A row of the value per core: every hidden tile of one row of the output, the scratch
  // tensor's columns, in its format.
  const ir::Tensor* t = first.find_tensor(c.tensor);
  if (!t || t->dims.size() != 2)
    throw tk::InternalError("internal error: report: no scratch tensor '" + c.tensor + "'");
  auto size = [&](const ir::Dim& d) {
    auto it = d.name.empty() ? shape.end() : shape.find(d.name);
    return it == shape.end() ? d.size : it->second;
  };
  Alternative l1{"l1", chosen == "l1", false};
  l1.l1_bytes_per_core = (size(t->dims[1]) + 31) / 32 * ir::tile_bytes(t->dtype);
  const std::int64_t budget = lower::tt::l1_cb_budget(first);
  l1.note = fmt::format("not generated: a row of '{}' takes {} B of the {} B of L1 for CBs{}, and "
                        "a core would take whole rows of the output, giving up the blocked, "
                        "multicast matmul",
                        c.value, grouped(l1.l1_bytes_per_core), grouped(budget),
                        l1.l1_bytes_per_core > budget ? " (it does not fit)" : "");

  Alternative dram{"dram", chosen == "dram", true};
  add(dram, estimate(first, shape));
  add(dram, estimate(second, shape));
  dram.note = fmt::format("'{}' then '{}' on one queue, '{}' written once and read back",
                          first.name, second.name, c.tensor);
  c.alternatives = {re, l1, dram};
  return c;
}

std::string format_text(const Choice& c) {
  std::string out =
      fmt::format("materialise: '{}' of kernel '{}'\n  why: {}\n", c.value, c.kernel, c.why);
  out += fmt::format("  {:<11} {:>14} {:>16} {:>16} {:>12}\n", "alternative", "matmul tiles",
                     "DRAM read B", "DRAM written B", "roofline us");
  for (const Alternative& a : c.alternatives) {
    const std::string name = a.choice + (a.chosen ? " *" : "");
    if (!a.built) {
      out += fmt::format("  {:<11} {}\n", name, a.note);
      continue;
    }
    out +=
        fmt::format("  {:<11} {:>14} {:>16} {:>16} {:>12.1f}  {}\n", name, grouped(a.matmul_tiles),
                    grouped(a.dram_bytes_read), grouped(a.dram_bytes_written), a.bound_us, a.note);
  }
  return out;
}

nlohmann::ordered_json to_json(const Choice& c) {
  nlohmann::ordered_json j;
  j["kernel"] = c.kernel;
  j["value"] = c.value;
  j["tensor"] = c.tensor;
  j["why"] = c.why;
  for (const Alternative& a : c.alternatives) {
    if (a.chosen)
      j["choice"] = a.choice;
  }
  j["alternatives"] = nlohmann::ordered_json::array();
  for (const Alternative& a : c.alternatives) {
    nlohmann::ordered_json x;
    x["choice"] = a.choice;
    x["chosen"] = a.chosen;
    x["generated"] = a.built;
    if (a.built) {
      x["matmul_tiles"] = a.matmul_tiles;
      x["dram_bytes_read"] = a.dram_bytes_read;
      x["dram_bytes_written"] = a.dram_bytes_written;
      x["bound_cycles"] = a.bound_cycles;
      x["bound_us"] = a.bound_us;
    } else {
      x["l1_bytes_per_core"] = a.l1_bytes_per_core;
    }
    x["note"] = a.note;
    j["alternatives"].push_back(std::move(x));
  }
  return j;
}

} // namespace tk::report
