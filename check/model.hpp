// ttgen check's model of a hand-written TT-Metalium kernel: the CB, DST and argument events of its
// kernel_main in program order, inside the loops and branches that hold them, with every count
// (pages, trip counts) a polynomial over the kernel's named values (docs/check.md).
#pragma once

#include "support/source.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tk::check {

/// A sum of integer multiples of products of symbols: `2`, `n_tiles`, `Kt * count - 1`. A symbol
/// is a value the checker cannot know: a runtime or compile-time argument (named after the
/// variable that holds it), or an expression it does not model (its source text).
class Poly {
public:
  Poly() = default;
  static Poly constant(std::int64_t c);
  static Poly symbol(std::string name);

  bool is_constant() const;
  std::int64_t constant_value() const; // the constant term
  bool is_zero() const { return terms_.empty(); }
  /// True when every coefficient is positive (so the value is positive for all positive
  /// symbols), false when every one is negative; nullopt when the signs are mixed or it is zero.
  std::optional<bool> positive() const;

  Poly operator+(const Poly& o) const;
  Poly operator-(const Poly& o) const;
  Poly operator*(const Poly& o) const;
  bool operator==(const Poly& o) const { return terms_ == o.terms_; }
  std::string str() const;
  std::vector<std::string> symbols() const;

private:
  std::map<std::vector<std::string>, std::int64_t> terms_; // sorted monomial -> coefficient
};

/// Which kernel of a program a file is: recognised from what it calls.
enum class Role { reader, compute, writer };
const char* to_string(Role);

enum class EventKind {
  reserve,      // cb_reserve_back(cb, pages)
  push,         // cb_push_back(cb, pages)
  wait,         // cb_wait_front(cb, pages)
  pop,          // cb_pop_front(cb, pages)
  write_ptr,    // get_write_ptr(cb)
  read_ptr,     // get_read_ptr(cb)
  acquire,      // tile_regs_acquire()
  commit,       // tile_regs_commit()
  dst_wait,     // tile_regs_wait()
  release,      // tile_regs_release()
  math,         // a compute call that writes DST (copy_tile, add_tiles, exp_tile, ...)
  pack,         // pack_tile(dst, cb)
  arg,          // get_arg_val<T>(index)
  noc_read,     // noc_async_read, noc_async_read_page, noc_async_read_tile
  noc_write,    // noc_async_write*, its source get_read_ptr(cb) when that is what it sends (cb)
  read_barrier, // noc_async_read_barrier
  write_flush,  // noc_async_writes_flushed, noc_async_write_barrier
  full_barrier, // noc_async_full_barrier: both
  acquire_dst,  // acquire_dst(): tile_regs_acquire and tile_regs_wait at once (reg_api.h)
  release_dst,  // release_dst(): tile_regs_commit and tile_regs_release at once
  opaque,       // a call ttgen check does not model that reaches CB or DST calls (cb, or every CB)
  ptr_take,     // `var = get_read_ptr(cb) [+ offset]`: var points into the front of cb
  ptr_use,      // a read of such a var
};

struct Event {
  EventKind kind;
  std::string call; // as written: "cb_wait_front(in, 2)"
  std::string name; // the function: "cb_wait_front"
  std::optional<std::int64_t> cb;
  Poly pages;                    // reserve, push, wait, pop
  std::vector<std::int64_t> dst; // the DST slots a math or pack call names (constants only)
  bool dst_unknown = false;      // a DST slot that is not a constant
  /// CB tiles a math call reads (cb, tile index), when constant.
  std::vector<std::pair<std::int64_t, std::int64_t>> reads;
  std::optional<std::int64_t> arg_index; // get_arg_val
  SourceRange range;
  std::string var;         // ptr_take, ptr_use: the variable
  bool opaque_dst = false; // opaque: the call reaches DST calls
  bool opaque_cbs = false; // opaque: the call reaches CB calls
};

struct Node;
using Body = std::vector<Node>;

struct Loop {
  std::optional<Poly> trips; // nullopt: not a counted loop (while, or a form it cannot count)
  std::string var;           // the loop variable, when counted
  SourceRange range;         // the loop's header
  Body body;
};

struct Branch {
  std::optional<bool> known; // the condition's value when it is a constant
  SourceRange range;         // the condition
  std::string cond;          // the condition as written: "mask_padded_data"
  /// The condition names only values that never change in the kernel (constants, locals never
  /// assigned after their initialisation) and calls nothing: two branches on the same text take
  /// the same side.
  bool stable = false;
  Body then_body, else_body;
};

struct Node {
  std::variant<Event, Loop, Branch> v;
};

/// One kernel file, summarised.
struct Kernel {
  std::unique_ptr<SourceFile> file;
  Role role = Role::reader;
  Body body;
  /// Symbols that hold a runtime argument: name -> get_arg_val index.
  std::map<std::string, std::int64_t> arg_symbols;
  /// Set when the kernel was parsed against another set of headers than the ones asked for
  /// (a compute kernel under --sdk: check/frontend.cpp), saying which and why; printed as a note.
  std::string note;
};

} // namespace tk::check
