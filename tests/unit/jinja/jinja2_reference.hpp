// Runs the reference renderer (tests/unit/jinja/render_jinja2.py under /usr/bin/python3, i.e.
// Debian's python3-jinja2) and finds the conformance cases and the project's templates.
#pragma once

#include "jinja/environment.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace tk::test {

struct ReferenceResult {
  bool ok = false;
  std::string output; // stdout: the rendered bytes
  std::string error;  // stderr: "jinja2: <Type>: <message>"
};

struct ReferenceRequest {
  std::string template_name;
  std::vector<std::filesystem::path> search; // FileSystemLoader search path
  std::filesystem::path data;                // empty: no data
  std::filesystem::path options;             // empty: jinja2's defaults
  bool parse_only = false;
};

ReferenceResult render_with_jinja2(const ReferenceRequest& r);

/// Reads options.json-style files: {"trim_blocks": true, ...}; unknown keys are an error.
jinja::Options read_options(const std::filesystem::path& file);

/// The conformance cases: folders of tests/golden/jinja holding a template.jinja, sorted.
std::vector<std::string> conformance_cases(const std::filesystem::path& corpus);

/// A template of the project and the sample data and options to render it with.
struct ProjectTemplate {
  std::string name;              // relative to the templates root, with '/' separators
  std::filesystem::path data;    // <data_root>/<name>.json, or empty when absent
  std::filesystem::path options; // <data_root>/<name>.options.json or <data_root>/options.json
};

/// Every *.jinja under `templates_root`, sorted, with its sample data under `data_root`.
std::vector<ProjectTemplate> project_templates(const std::filesystem::path& templates_root,
                                               const std::filesystem::path& data_root);

/// A gtest-safe test name for a path ("tt/reader.cpp.jinja" -> "tt_reader_cpp_jinja").
std::string test_name(const std::string& path);

} // namespace tk::test
