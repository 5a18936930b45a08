// "Did you mean" suggestions: the checker's unknown names, ttgen's unknown flags' values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tk {

/// Levenshtein distance with transpositions.
std::size_t edit_distance(const std::string& a, const std::string& b);
/// The closest candidate within a small distance (one edit for names of up to 3 characters, two
/// for longer ones), or "" when there is none or two are equally close.
std::string closest(const std::string& name, const std::vector<std::string>& candidates);

} // namespace tk
