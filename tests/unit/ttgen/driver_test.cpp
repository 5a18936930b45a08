// The ttgen driver in-process: results on the given streams, and internal errors that never
// blame the user.
#include "tools/ttgen/driver.hpp"

#include "support/diagnostics.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

namespace tk::test {
namespace {

using namespace tk::ttgen;

TEST(TtgenDriver, RunReadsStdinAndPrintsCanonicalText) {
  std::istringstream in("kernel k(A: bf16[M, N]) -> (B: bf16[M, N]) {\n"
                        "  parallel i in tiles(M), j in tiles(N) { B[i, j] = exp(A[i, j]) }\n"
                        "}");
  std::ostringstream out, err;
  Options options;
  options.input = "-";
  EXPECT_EQ(run(options, in, out, err), kOk) << err.str();
  EXPECT_EQ(out.str(), "kernel k(A: bf16[M, N]) -> (B: bf16[M, N]) {\n"
                       "    parallel i in tiles(M), j in tiles(N) {\n"
                       "        B[i, j] = exp(A[i, j])\n"
                       "    }\n"
                       "}\n");
  EXPECT_EQ(err.str(), "");
}

TEST(TtgenDriver, RunReportsSyntaxErrorsAsUserErrors) {
  std::istringstream in("kernel k(");
  std::ostringstream out, err;
  Options options;
  options.input = "-";
  EXPECT_EQ(run(options, in, out, err), kUserError);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "<stdin>:1:10: error: expected ')'\n"
                       "   1 | kernel k(\n"
                       "     |          ^\n"
                       "<stdin>:1:9: note: to match this '('\n"
                       "   1 | kernel k(\n"
                       "     |         ^\n");
}

TEST(TtgenDriver, InternalErrorIsReportedAsOurBug) {
  std::ostringstream err;
  int code = guard_internal_errors(
      []() -> int { throw InternalError("verifier: CB 3 unbalanced", "func @k { ... }"); }, err);
  EXPECT_EQ(code, kInternalError);
  EXPECT_EQ(err.str(), "ttgen: internal error: verifier: CB 3 unbalanced\n"
                       "func @k { ... }\n"
                       "ttgen: this is a bug in TileKit, not in your kernel; please report it "
                       "with the input file\n");
}

// InternalError messages start with "internal error: " by convention: printed once, not twice.
TEST(TtgenDriver, InternalErrorPrefixIsPrintedOnce) {
  std::ostringstream err;
  int code = guard_internal_errors(
      []() -> int { throw InternalError("internal error: render: no signature"); }, err);
  EXPECT_EQ(code, kInternalError);
  EXPECT_EQ(err.str(), "ttgen: internal error: render: no signature\n"
                       "ttgen: this is a bug in TileKit, not in your kernel; please report it "
                       "with the input file\n");
}

TEST(TtgenDriver, UnexpectedExceptionIsAnInternalError) {
  std::ostringstream err;
  int code = guard_internal_errors([]() -> int { throw std::out_of_range("map::at"); }, err);
  EXPECT_EQ(code, kInternalError);
  EXPECT_EQ(err.str(), "ttgen: internal error: map::at\n"
                       "ttgen: this is a bug in TileKit, not in your kernel; please report it "
                       "with the input file\n");
}

TEST(TtgenDriver, InternalErrorAsJson) {
  std::ostringstream err;
  int code = guard_internal_errors(
      []() -> int { throw InternalError("verifier: CB 3 unbalanced", "func @k { ... }"); }, err,
      /*json=*/true);
  EXPECT_EQ(code, kInternalError);
  auto note = [](const char* message) {
    return nlohmann::json{{"severity", "note"},
                          {"message", message},
                          {"file", nullptr},
                          {"line", nullptr},
                          {"column", nullptr},
                          {"ranges", nlohmann::json::array()},
                          {"notes", nlohmann::json::array()}};
  };
  nlohmann::json d = note("internal error: verifier: CB 3 unbalanced");
  d["severity"] = "error";
  d["notes"] = {note("func @k { ... }"),
                note("this is a bug in TileKit, not in your kernel; please report it with the "
                     "input file")};
  EXPECT_EQ(nlohmann::json::parse(err.str()), (nlohmann::json{{"diagnostics", {d}}})) << err.str();
}

TEST(TtgenDriver, GuardPassesTheResultThrough) {
  std::ostringstream err;
  EXPECT_EQ(guard_internal_errors([] { return kUserError; }, err), kUserError);
  EXPECT_EQ(err.str(), "");
}

} // namespace
} // namespace tk::test
