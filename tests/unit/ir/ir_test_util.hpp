// Shared by the IR tests: a small matmul module built in C++, and text helpers.
#pragma once

#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"

#include <gtest/gtest.h>

namespace tk::ir::test {

/// C = A @ B as to-tile-ir produces it, built by hand.
inline Module matmul_module() {
  Program p;
  p.name = "matmul";
  p.options = Options{.grid = Grid{8, 8}};
  p.tensors = {{"A", DType::bf16, {{"M", 0}, {"K", 0}}, TensorRole::input, {}, {}},
               {"B", DType::bf16, {{"K", 0}, {"N", 0}}, TensorRole::input, {}, {}},
               {"C", DType::bf16, {{"M", 0}, {"N", 0}}, TensorRole::output, {}, {}}};
  Function f;
  f.name = "matmul";
  f.kind = FuncKind::kernel;
  f.params = {{"A", Type::tensor()}, {"B", Type::tensor()}, {"C", Type::tensor()},
              {"M", Type::i32()},    {"K", Type::i32()},    {"N", Type::i32()}};
  Type t32 = Type::tile(DType::f32);
  Expr i = var("i", Type::i32()), j = var("j", Type::i32()), k = var("k", Type::i32());
  Expr acc = var("acc", t32);
  Stmt kloop = for_loop(
      "k", int_imm(0), var("Kt", Type::i32()), ForRole::reduction,
      block({assign("acc", call(Intrinsic::tile_matmul_acc, {acc, load("A", DType::bf16, {i, k}),
                                                             load("B", DType::bf16, {k, j})}))}));
  Stmt inner =
      block({decl("acc", t32, call(Intrinsic::tile_zeros, {})), kloop, store("C", {i, j}, acc)});
  Stmt jloop = for_loop("j", int_imm(0), var("Nt", Type::i32()), ForRole::parallel, inner);
  Stmt iloop = for_loop("i", int_imm(0), var("Mt", Type::i32()), ForRole::parallel, block({jloop}));
  std::vector<Stmt> body;
  for (const char* d : {"M", "K", "N"})
    body.push_back(decl(std::string(d) + "t", Type::i32(), var(d, Type::i32()) / int_imm(32)));
  body.push_back(iloop);
  f.body = block(body);
  p.functions.push_back(f);
  Module m;
  m.programs.push_back(p);
  return m;
}

/// Reads `text` (named dump.txt); fails the test with the diagnostics if it does not parse.
inline Module read_text(const std::string& text) {
  SourceFile file("dump.txt", text);
  Diagnostics diags;
  std::optional<Module> m = read_module(file, diags);
  EXPECT_TRUE(m.has_value()) << diags.str() << "\n--- input ---\n" << text;
  return m ? *m : Module{};
}

/// The diagnostics printed for `text`, which must not parse.
inline std::string read_error(const std::string& text) {
  SourceFile file("dump.txt", text);
  Diagnostics diags;
  std::optional<Module> m = read_module(file, diags);
  EXPECT_FALSE(m.has_value()) << "parsed although it should not:\n" << text;
  return diags.str();
}

} // namespace tk::ir::test
