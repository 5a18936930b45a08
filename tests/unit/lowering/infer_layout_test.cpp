// infer-layout: every tensor gets DRAM / interleaved / 32x32 / one tile per page; existing
// layouts are kept, and a module that already has them comes back identical.
#include "lowering/front/infer_layout.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"

#include <gtest/gtest.h>

namespace tk::lower {
namespace {

ir::Module read(const std::string& text) {
  SourceFile f("in.txt", text);
  Diagnostics d;
  auto m = ir::read_module(f, d);
  EXPECT_TRUE(m) << d.str();
  return m ? *m : ir::Module{};
}

const char* kInput = R"(program p {
  tensor a: bf16[M, 64] input
  tensor b: f32[1, N] input
  tensor c: f32[M, N] output layout l1 sharded tile 32x32 page 4096

  func kernel p(a: tensor, b: tensor, c: tensor, M: i32, N: i32) {
    store c[0, 0] = tile.add(load a[0, 0], load b[0, 0])
  }
}
)";

TEST(InferLayout, EveryTensorGetsTheDefaultLayout) {
  ir::Module in = read(kInput);
  Diagnostics d;
  ir::Module out = infer_layout(in, d);
  EXPECT_EQ(ir::print(out), R"(program p {
  tensor a: bf16[M, 64] input layout dram interleaved tile 32x32 page 2048
  tensor b: f32[1, N] input layout dram interleaved tile 32x32 page 4096
  tensor c: f32[M, N] output layout l1 sharded tile 32x32 page 4096

  func kernel p(a: tensor, b: tensor, c: tensor, M: i32, N: i32) {
    store c[0, 0] = tile.add(load a[0, 0], load b[0, 0])
  }
}
)");
  EXPECT_FALSE(ir::identical(in, out));
  EXPECT_EQ(out.programs[0].functions[0].body, in.programs[0].functions[0].body);
}

TEST(InferLayout, SecondRunChangesNothing) {
  Diagnostics d;
  ir::Module once = infer_layout(read(kInput), d);
  ir::Module twice = infer_layout(once, d);
  EXPECT_TRUE(ir::identical(once, twice));
  EXPECT_FALSE(d.has_errors());
}

} // namespace
} // namespace tk::lower
