// The part of the IR reader that reads a program's header: attributes and the typed header fields
// taken back out of them, tensors, circular buffers, accessors, options, blocking, materialise,
// a function's kernel config and the host plan (docs/ir.md). reader.cpp's Reader adds functions,
// statements and expressions. Internal to the reader.
#pragma once

#include "lowering/ir/token_stream.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace tk::ir {

// Every walk over the IR (verifier, printer, equality, the stages, the destructors) recurses once
// per level of nesting, so the reader bounds how deep a module nests: a statement's depth (the
// bodies around it) plus the depth of an expression tree in it, or an attribute list's nesting.
// The compiler's own dumps stay below: a .tk statement nests at most 256 brackets and holds at
// most 256 operators (parser/grammar.hpp), and lowering adds a handful of levels.
constexpr int kMaxDepth = 1536;
// The reader's own recursion (bodies, parenthesised and argument expressions, attribute lists),
// bounded before the tree it reads is known: redundant parentheses nest the text without
// deepening the tree, and a parenthesised right operand costs two levels, so this bound is twice
// the depth (the printed form of a module the reader accepts then always reads back). With ASan's
// stack frames it stays within an 8 MiB stack.
constexpr int kMaxNesting = 2 * kMaxDepth;

class HeaderReader : protected TokenStream {
public:
  HeaderReader(const SourceFile& f, Diagnostics& d) : TokenStream(f.text(), d) {}

protected:
  const Program* prog_ = nullptr; // the program being read (a host plan's tensors are its own)
  int nesting_ = 0;               // open recursive constructs (Nest)

  // Counts one level of the reader's recursion while in scope.
  class Nest {
  public:
    explicit Nest(HeaderReader& r) : r_(r) {
      if (++r_.nesting_ > kMaxNesting)
        r_.fail(r_.peek().range,
                "nesting is too deep (the limit is " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Nest() { --r_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

  private:
    HeaderReader& r_;
  };
  // Called with the depth of a tree just built (a statement's expression, an attribute list).
  void check_depth(int depth, const Token& where) {
    if (depth > kMaxDepth)
      fail(where.range, "the IR nests too deeply here (the limit is " + std::to_string(kMaxDepth) +
                            " levels of statements and expressions)");
  }

  // ---- attributes ----
  AttrValue attr_value(int depth = 1);
  Attrs attrs();
  // The typed fields a program prints among its attributes (printer.cpp, program_attrs), taken
  // back out of them with their types checked.
  void typed_attrs(Program& p, const SourceRange& where);

  // ---- declarations ----
  Tensor tensor();
  CircularBuffer circular_buffer();

  // ---- the host plan (host_plan.hpp), options, blocking, materialise, a kernel's config ----
  bool boolean();
  // `[a, b]`: names of host values or functions.
  std::vector<std::string> names(std::string_view what);
  // A tensor named by a host-plan entry: declared before, like the tensors a body names.
  std::string known_tensor(std::string_view what);
  Accessor accessor();
  std::string string_literal(std::string_view what);
  Options options();
  Blocking blocking();
  Materialise materialise();
  KernelConfig kernel_config();
  HostPlan host_plan();
};

} // namespace tk::ir
