// Parser + checker: any bytes as a .tk file. Diagnostics are fine; a crash, an exception or a
// broken promise is not. Checked for every input:
//  * parse returns nothing exactly when it reported an error (parser/parse.hpp);
//  * the canonical text of what parsed parses again into an equal module and prints the same
//    (dsl/print.hpp: parse(print(m)) == m, print is a fixed point);
//  * check returns false exactly when it reported an error, and the reprinted module checks the
//    same way (the AST is equal, so the verdict must be).
#include "dsl/check.hpp"
#include "dsl/print.hpp"
#include "fuzz/fuzz_check.hpp"
#include "parser/parse.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {
// Example kernels are under 2 KB; a bigger input only makes each run slower.
constexpr std::size_t kMaxInput = 16 * 1024;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tk;
  if (size > kMaxInput)
    return -1;
  fuzz::no_exception([&] {
    SourceFile file("fuzz.tk", std::string(reinterpret_cast<const char*>(data), size));
    Diagnostics diags(&file);
    std::optional<dsl::Module> m = parser::parse(file, diags);
    fuzz::check(m.has_value() == !diags.has_errors(),
                "parse returned a module but reported errors, or neither", diags.str());
    (void)diags.str(); // the diagnostic printer: line, column, caret under the range
    if (!m)
      return;

    const std::string text = dsl::print(*m);
    SourceFile printed("printed.tk", text);
    Diagnostics pdiags(&printed);
    std::optional<dsl::Module> again = parser::parse(printed, pdiags);
    fuzz::check(again.has_value(), "the printed module does not parse", text + "\n" + pdiags.str());
    fuzz::check(*again == *m, "the printed module parses into a different module", text);
    fuzz::check(dsl::print(*again) == text, "print is not a fixed point",
                text + "\n---- printed again:\n" + dsl::print(*again));

    const bool ok = dsl::check(*m, diags);
    fuzz::check(ok == !diags.has_errors(), "check's verdict and its diagnostics disagree",
                diags.str());
    (void)diags.str();
    const bool ok_again = dsl::check(*again, pdiags);
    fuzz::check(ok == ok_again, "the printed module checks differently",
                text + "\n" + diags.str() + "\n---- printed:\n" + pdiags.str());
  });
  return 0;
}
