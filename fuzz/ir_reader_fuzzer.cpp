// IR reader: any bytes as a printed IR dump. A syntax error is a located diagnostic; a module
// that reads must survive the verifier (which may reject it, but not crash) and print back to
// text that reads into an equal module and prints the same (docs/ir.md: "that text reads back
// into an equal module").
#include "fuzz/fuzz_check.hpp"
#include "lowering/ir/equal.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/ir/verifier.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {
// The golden dumps are under 8 KB.
constexpr std::size_t kMaxInput = 32 * 1024;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tk;
  if (size > kMaxInput)
    return -1;
  fuzz::no_exception([&] {
    SourceFile file("fuzz.ir", std::string(reinterpret_cast<const char*>(data), size));
    (void)ir::read_stage_header(file.text());
    Diagnostics diags(&file);
    std::optional<ir::Module> m = ir::read_module(file, diags);
    fuzz::check(m.has_value() == !diags.has_errors(),
                "read_module returned a module but reported errors, or neither", diags.str());
    (void)diags.str();
    if (!m)
      return;
    (void)ir::find_ir_error(*m);

    const std::string text = ir::print(*m);
    SourceFile printed("printed.ir", text);
    Diagnostics pdiags(&printed);
    std::optional<ir::Module> again = ir::read_module(printed, pdiags);
    fuzz::check(again.has_value(), "the printed module does not read back",
                text + "\n" + pdiags.str());
    fuzz::check(ir::equal(*again, *m), "the printed module reads back as a different module", text);
    fuzz::check(ir::print(*again) == text, "print is not a fixed point",
                text + "\n---- printed again:\n" + ir::print(*again));
  });
  return 0;
}
