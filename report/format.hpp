// ttgen report's output: an Estimate (estimate.hpp) as a text table for people or as JSON for
// scripts. docs/timing.md, "Static estimate", shows both.
#pragma once

#include "report/estimate.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace tk::report {

std::string format_text(const Estimate& e);
nlohmann::ordered_json to_json(const Estimate& e);

} // namespace tk::report
