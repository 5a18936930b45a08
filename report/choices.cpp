#include "report/choices.hpp"

#include "lowering/tt/target.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

namespace tk::report {

namespace {

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

Choice materialise_choice(const ir::Materialise& decided, const std::string& kernel,
                          const ir::Program* first, const ir::Program* second,
                          const ir::Program* recomputed, const Shape& shape) {
  Choice c;
  c.kernel = kernel;
  c.value = decided.value;
  c.basis = std::string(ir::to_string(decided.basis));
  c.why = decided.why;
  const bool dram_chosen = decided.choice == ir::Materialise::Choice::dram;
  const bool priced = first && second && first->materialise && !first->materialise->tensor.empty();
  // The scratch tensor of the materialised form (the choice's tensor only when it is chosen).
  const std::string scratch = priced ? first->materialise->tensor : "";
  if (dram_chosen)
    c.tensor = scratch;
  const std::string dump = "not priced: the input is an IR dump past the materialise stage";

  Alternative re{"recompute", !dram_chosen, recomputed != nullptr};
  if (recomputed) {
    add(re, estimate(*recomputed, shape));
    re.note = "the kernel as written: every work item recomputes its hidden tiles";
  } else {
    re.note = dump;
  }

  // A row of the value per core: every hidden tile of one row of the output, the scratch
  // tensor's columns, in its format.
  Alternative l1{"l1", false, false};
  if (priced) {
    const ir::Tensor* t = first->find_tensor(scratch);
    if (!t || t->dims.size() != 2)
      throw tk::InternalError("internal error: report: no scratch tensor '" + scratch + "'");
    auto size = [&](const ir::Dim& d) {
      auto it = d.name.empty() ? shape.end() : shape.find(d.name);
      return it == shape.end() ? d.size : it->second;
    };
    l1.l1_bytes_per_core = (size(t->dims[1]) + 31) / 32 * ir::tile_bytes(t->dtype);
    const std::int64_t budget = lower::tt::l1_cb_budget(*first);
    l1.note = fmt::format("not generated: a row of '{}' takes {} B of the {} B of L1 for CBs{}, "
                          "and a core would take whole rows of the output, giving up the blocked, "
                          "multicast matmul",
                          c.value, grouped(l1.l1_bytes_per_core), grouped(budget),
                          l1.l1_bytes_per_core > budget ? " (it does not fit)" : "");
  } else {
    l1.note = "not generated: a core would take whole rows of the output, giving up the blocked, "
              "multicast matmul";
  }

  Alternative dram{"dram", dram_chosen, priced};
  if (priced) {
    add(dram, estimate(*first, shape));
    add(dram, estimate(*second, shape));
    dram.note = fmt::format("'{}' then '{}' on one queue, '{}' written once and read back",
                            first->name, second->name, scratch);
  } else {
    dram.note = dump;
  }
  c.alternatives = {re, l1, dram};
  return c;
}

std::string format_text(const Choice& c) {
  std::string out = fmt::format("materialise: '{}' of kernel '{}' (by {})\n  why: {}\n", c.value,
                                c.kernel, c.basis, c.why);
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
  j["basis"] = c.basis;
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
