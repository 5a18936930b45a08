// The lowering chain: any bytes as a .tk file; what parses and checks is lowered through the
// whole chain of both targets (every stage followed by the IR verifier: this build keeps
// assertions, so PipelineOptions::verify_each is on) and rendered with the project's templates,
// as `ttgen F.tk --target=all -o DIR` does (tools/ttgen/driver.cpp) short of clang-format.
// A user error (a located diagnostic, e.g. a kernel needing too many CBs) is fine; an
// InternalError, another exception or a crash is a bug in TileKit.
#include "codegen/render.hpp"
#include "dsl/check.hpp"
#include "fuzz/fuzz_check.hpp"
#include "lowering/pipeline.hpp"
#include "parser/parse.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {
// Example kernels are under 2 KB. Lowering and rendering cost grows with the kernel (in this build
// the deepest kernel the checker accepts, 3 KB, takes 3 s), so 4 KB keeps every run within
// seconds; the parser's and checker's limits, not the input size, bound the depth.
constexpr std::size_t kMaxInput = 4 * 1024;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tk;
  if (size > kMaxInput)
    return -1;
  fuzz::no_exception([&] {
    SourceFile file("fuzz.tk", std::string(reinterpret_cast<const char*>(data), size));
    Diagnostics diags(&file);
    std::optional<dsl::Module> m = parser::parse(file, diags);
    if (!m || !dsl::check(*m, diags))
      return;

    codegen::Lowered lowered;
    lower::PipelineOptions options;
    options.source = "fuzz.tk";
    for (lower::Target t : {lower::Target::tt, lower::Target::cpu}) {
      std::optional<ir::Module> ir = lower::run_pipeline(*m, t, options, diags);
      fuzz::check(ir.has_value() == !diags.has_errors(),
                  "run_pipeline returned a module but reported errors, or neither", diags.str());
      (void)diags.str();
      if (!ir)
        return;
      (t == lower::Target::cpu ? lowered.cpu : lowered.tt) = std::move(*ir);
    }
    (void)codegen::render_files(lowered, "fuzz");
  });
  return 0;
}
