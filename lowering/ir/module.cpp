#include "lowering/ir/module.hpp"

namespace tk::ir {

const Tensor* Program::find_tensor(std::string_view n) const {
  for (const Tensor& t : tensors)
    if (t.name == n)
      return &t;
  return nullptr;
}

const CircularBuffer* Program::find_cb(std::string_view n) const {
  for (const CircularBuffer& c : cbs)
    if (c.name == n)
      return &c;
  return nullptr;
}

const Accessor* Program::find_accessor(std::string_view tensor) const {
  for (const Accessor& a : accessors)
    if (a.tensor == tensor)
      return &a;
  return nullptr;
}

std::string_view to_string(Materialise::Choice c) {
  return c == Materialise::Choice::dram ? "dram" : "recompute";
}

std::string_view to_string(Materialise::Basis b) {
  switch (b) {
  case Materialise::Basis::rule:
    return "rule";
  case Materialise::Basis::model:
    return "model";
  case Materialise::Basis::request:
    return "request";
  }
  return "rule";
}

std::optional<Materialise::Choice> materialise_choice_from_string(std::string_view s) {
  for (Materialise::Choice c : {Materialise::Choice::recompute, Materialise::Choice::dram})
    if (to_string(c) == s)
      return c;
  return std::nullopt;
}

std::optional<Materialise::Basis> materialise_basis_from_string(std::string_view s) {
  for (Materialise::Basis b :
       {Materialise::Basis::rule, Materialise::Basis::model, Materialise::Basis::request})
    if (to_string(b) == s)
      return b;
  return std::nullopt;
}

namespace {
bool same_function(const Function& a, const Function& b) {
  return a.name == b.name && a.kind == b.kind && a.params == b.params && a.attrs == b.attrs &&
         a.config == b.config && a.body == b.body;
}
bool same_program(const Program& a, const Program& b) {
  if (a.name != b.name || a.attrs != b.attrs || a.signature != b.signature ||
      a.combine != b.combine || a.dst_fp32 != b.dst_fp32 || a.cpu_packed_a != b.cpu_packed_a ||
      a.grouped_dims != b.grouped_dims || a.rows != b.rows || a.options != b.options ||
      a.blocking != b.blocking || a.materialise != b.materialise || a.tensors != b.tensors ||
      a.cbs != b.cbs || a.accessors != b.accessors || a.host_plan != b.host_plan ||
      a.functions.size() != b.functions.size())
    return false;
  for (std::size_t i = 0; i < a.functions.size(); ++i)
    if (!same_function(a.functions[i], b.functions[i]))
      return false;
  return true;
}
} // namespace

bool identical(const Module& a, const Module& b) {
  if (a.attrs != b.attrs || a.programs.size() != b.programs.size())
    return false;
  for (std::size_t i = 0; i < a.programs.size(); ++i)
    if (!same_program(a.programs[i], b.programs[i]))
      return false;
  return true;
}

} // namespace tk::ir
