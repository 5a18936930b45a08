// Where ttgen's diagnostics go: printed at once in clang's text form, or gathered into one JSON
// document printed at the end (--diagnostics-format=json, for editors and CI).
#pragma once

#include "support/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace tk::ttgen {

class Reporter {
public:
  Reporter(std::ostream& err, bool json) : err_(err), json_(json) {}
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  /// An error with no place in the source: "ttgen: error: MESSAGE" (a usage error).
  void error(std::string message);
  /// Every diagnostic of `d` (text: with clang's "N errors generated." summary).
  void add(const Diagnostics& d);
  void add(const Diagnostic& d);
  /// JSON: prints the document holding everything added. Text: nothing left to print.
  void finish();
  bool json() const { return json_; }

private:
  std::ostream& err_;
  bool json_;
  nlohmann::ordered_json list_ = nlohmann::ordered_json::array();
};

/// One diagnostic as JSON: severity, message, option (warnings), file, line, column (1-based;
/// null without a location), ranges ([{begin, end}] of {line, column}, end exclusive) and notes.
nlohmann::ordered_json to_json(const Diagnostic& d);

/// A usage error found before the driver runs (a bad flag): text "ttgen: error: MESSAGE" and
/// the note as a line of its own, or a JSON document with one error and the note.
void print_usage_error(std::ostream& err, bool json, const std::string& message,
                       const std::string& note);

} // namespace tk::ttgen
