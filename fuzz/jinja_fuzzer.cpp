// The Jinja engine: the input is an options byte, a template, a NUL, then the JSON data
//
//   [bit 0 trim_blocks | bit 1 lstrip_blocks | bit 2 keep_trailing_newline] TEMPLATE \0 DATA
//
// (no NUL: no data). Data that is not JSON, or nests deeper than any template data TileKit
// makes, is skipped: the data is always codegen's, never the user's. A render may do 10^6 units
// of work (jinja::Options::max_work), several times what the project templates need. Includes
// resolve in the project's templates/ folder, so the seeds built from templates/ render as in
// ttgen. A TemplateError is fine (every syntax and render error is one, docs/templates.md); a
// crash, any other exception or a sanitizer report is a bug.
#include "fuzz/fuzz_check.hpp"
#include "jinja/environment.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {
// The largest seed (a project template and its sample data) is under 40 KB.
constexpr std::size_t kMaxInput = 64 * 1024;
// Template data nests a statement tree per level of loop; 64 is far beyond any kernel's.
constexpr int kMaxDataDepth = 64;
// Work per render (jinja::Options::max_work): the project templates' seeds need under 300000;
// without a bound, nested loops or a string doubled per macro call run for hours or out of memory.
constexpr std::uint64_t kMaxWork = 1'000'000;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  using namespace tk;
  if (size == 0 || size > kMaxInput)
    return -1;
  const std::string_view input(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  const jinja::Options options{.trim_blocks = (bytes[0] & 1) != 0,
                               .lstrip_blocks = (bytes[0] & 2) != 0,
                               .keep_trailing_newline = (bytes[0] & 4) != 0,
                               .max_work = kMaxWork};
  const std::size_t nul = input.find('\0');
  const std::string_view source = input.substr(0, nul);
  nlohmann::json data;
  if (nul != std::string_view::npos) {
    bool too_deep = false;
    data = nlohmann::json::parse(
        input.substr(nul + 1),
        [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          too_deep = too_deep || depth > kMaxDataDepth;
          return true;
        },
        /*allow_exceptions=*/false);
    if (data.is_discarded() || too_deep)
      return -1;
  }
  fuzz::no_exception([&] {
    jinja::Environment env(TK_FUZZ_TEMPLATE_DIR, options); // one per input: nothing cached
    try {
      (void)env.render_string(source, data, "fuzz.jinja");
    } catch (const jinja::TemplateError& e) {
      (void)e.what();
    }
  });
  return 0;
}
