// docs/ir.md lists every intrinsic of the table, with its argument kinds, so the doc cannot drift.
#include "lowering/ir/intrinsics.hpp"
#include "tests/support/golden.hpp"

namespace tk::ir {
namespace {

TEST(Docs, IntrinsicTableIsComplete) {
  std::string doc = tk::test::read_file(tk::test::source_dir() / "docs/ir.md");
  ASSERT_FALSE(doc.empty());
  for (Intrinsic in : all_intrinsics()) {
    std::string args;
    for (ArgKind k : info(in).args)
      args += (args.empty() ? "" : " ") + std::string(to_string(k));
    std::string row =
        "| `" + std::string(to_string(in)) + "` | " + (args.empty() ? "—" : args) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/ir.md lacks the row " << row;
  }
}

} // namespace
} // namespace tk::ir
