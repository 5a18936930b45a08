// ttgen's diagnostics as text or as one JSON document (see report.hpp).
#include "tools/ttgen/report.hpp"

#include <algorithm>
#include <ostream>

namespace tk::ttgen {

namespace {

const char* severity_name(Severity s) {
  switch (s) {
  case Severity::error:
    return "error";
  case Severity::warning:
    return "warning";
  case Severity::note:
    return "note";
  }
  return "error";
}

nlohmann::ordered_json position(const SourceFile& f, std::uint32_t offset) {
  LineCol lc = f.line_col(offset);
  return {{"line", lc.line}, {"column", lc.col}};
}

void print_document(std::ostream& err, const nlohmann::ordered_json& list) {
  err << nlohmann::ordered_json{{"diagnostics", list}}.dump(2) << '\n';
  err.flush();
}

} // namespace

nlohmann::ordered_json to_json(const Diagnostic& d) {
  nlohmann::ordered_json j = {{"severity", severity_name(d.severity)}, {"message", d.message}};
  if (!d.option.empty())
    j["option"] = d.option;
  if (d.file) {
    LineCol lc = d.file->line_col(d.range.begin);
    j["file"] = d.file->name();
    j["line"] = lc.line;
    j["column"] = lc.col;
    j["ranges"] = nlohmann::ordered_json::array(
        {{{"begin", position(*d.file, d.range.begin)},
          {"end", position(*d.file, std::max(d.range.end, d.range.begin))}}});
  } else {
    j["file"] = nullptr;
    j["line"] = nullptr;
    j["column"] = nullptr;
    j["ranges"] = nlohmann::ordered_json::array();
  }
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const Diagnostic& n : d.notes)
    notes.push_back(to_json(n));
  j["notes"] = std::move(notes);
  return j;
}

void Reporter::error(std::string message) {
  Diagnostic d{Severity::error, nullptr, {}, std::move(message), {}};
  if (json_)
    list_.push_back(to_json(d));
  else
    print_diagnostic(err_, d);
}

void Reporter::add(const Diagnostics& d) {
  if (!json_) {
    d.print(err_);
    return;
  }
  for (const Diagnostic& x : d.all())
    list_.push_back(to_json(x));
}

void Reporter::add(const Diagnostic& d) {
  if (json_)
    list_.push_back(to_json(d));
  else
    print_diagnostic(err_, d);
}

void Reporter::finish() {
  if (json_)
    print_document(err_, list_);
}

void print_usage_error(std::ostream& err, bool json, const std::string& message,
                       const std::string& note) {
  if (!json) {
    err << "ttgen: error: " << message << '\n' << note << '\n';
    return;
  }
  Diagnostic d{Severity::error, nullptr, {}, message, {}};
  d.note(note);
  print_document(err, nlohmann::ordered_json::array({to_json(d)}));
}

} // namespace tk::ttgen
