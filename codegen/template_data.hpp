// Template data: the lowered IR of a .tk file in structured form (the bodies via ir_value.hpp) plus
// the per-target facts the templates need (the kernel signature, how each named dimension is
// bound, the shape checks). Every decision is made here; the templates only spell it.
#pragma once

#include "jinja/value.hpp"
#include "lowering/ir/module.hpp"

#include <optional>
#include <string>

namespace tk::codegen {

/// The lowered module of each target being generated (a target left empty is not generated).
/// Both come from the same .tk file, so their programs and tensors agree. Each program's
/// `signature` attribute (set by to-tile-ir) lists the kernel's parameters in declaration order.
struct Lowered {
  std::optional<ir::Module> cpu;
  std::optional<ir::Module> tt;
};

/// The data given to every template of the file (schema: docs/codegen.md), built as the
/// renderer's values (no JSON in between; `Value::to_json` prints it, --emit=template-data).
/// Deterministic: keys are sorted, lists follow the IR's order.
jinja::Value template_data(const Lowered& lowered, const std::string& file_stem);

} // namespace tk::codegen
