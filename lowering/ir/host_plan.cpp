#include "lowering/ir/host_plan.hpp"

#include <array>
#include <utility>

namespace tk::ir {

namespace {

// Each enumerator's one printed name; the reverse lookup is an exact comparison.
template <class E, std::size_t N>
using Table = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
std::string_view name_in(const Table<E, N>& t, E e) {
  for (const auto& [v, s] : t)
    if (v == e)
      return s;
  return "?";
}
template <class E, std::size_t N>
std::optional<E> find_in(const Table<E, N>& t, std::string_view s) {
  for (const auto& [v, n] : t)
    if (n == s)
      return v;
  return std::nullopt;
}

constexpr Table<Processor, 2> kProcessor{
    {{Processor::riscv_0, "riscv_0"}, {Processor::riscv_1, "riscv_1"}}};
constexpr Table<Noc, 2> kNoc{{{Noc::noc_0, "noc_0"}, {Noc::noc_1, "noc_1"}}};
constexpr Table<MathFidelity, 4> kFidelity{{{MathFidelity::lofi, "lofi"},
                                            {MathFidelity::hifi2, "hifi2"},
                                            {MathFidelity::hifi3, "hifi3"},
                                            {MathFidelity::hifi4, "hifi4"}}};
constexpr Table<WorkSplit, 2> kSplit{
    {{WorkSplit::split_work_to_cores, "split_work_to_cores"}, {WorkSplit::core_grid, "core_grid"}}};

} // namespace

std::string_view to_string(Processor p) {
  return name_in(kProcessor, p);
}
std::optional<Processor> processor_from_string(std::string_view s) {
  return find_in(kProcessor, s);
}
std::string_view to_string(Noc n) {
  return name_in(kNoc, n);
}
std::optional<Noc> noc_from_string(std::string_view s) {
  return find_in(kNoc, s);
}
std::string_view to_string(MathFidelity f) {
  return name_in(kFidelity, f);
}
std::optional<MathFidelity> math_fidelity_from_string(std::string_view s) {
  return find_in(kFidelity, s);
}
std::string_view to_string(WorkSplit w) {
  return name_in(kSplit, w);
}
std::optional<WorkSplit> work_split_from_string(std::string_view s) {
  return find_in(kSplit, s);
}

} // namespace tk::ir
