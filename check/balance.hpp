// ttgen check's proof across the kernels of one program (balance.cpp): every CB's pushes,
// summed over its producers, against its pops, from what the walk of each kernel (analyze.cpp)
// found it doing to the CB over its whole run.
#pragma once

#include "check/analyze.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk::check {

std::string cb_name(std::int64_t cb); // "c_16"
std::string pages(std::int64_t n);    // "1 page", "2 pages"
std::string pages(const Poly& p);     // "n_tiles pages"
std::string file_name(const Kernel& k);
/// A warning of ttgen check: what it cannot prove. Not one of ttgen's switchable .tk warnings, so
/// it names no -W flag.
Diagnostic& cannot_prove(Diagnostics& diags, SourceRange where, std::string message);

/// Adds the CBs `b` pushes or reserves to `produced`, those it pops or waits for to `consumed`.
void streamed(const Body& b, std::set<std::int64_t>& produced, std::set<std::int64_t>& consumed);

/// Whether `b` has a push of `cb`, or a call it does not model that may push it, on a path the
/// defines and compile-time args leave in (a branch of known value is taken one way).
bool may_push(const Body& b, std::int64_t cb);

/// What a kernel does to one CB over its whole run.
struct Totals {
  std::optional<Poly> pushed = Poly(), popped = Poly(); // nullopt: not countable
  const Event* first_push = nullptr;
  const Event* first_pop = nullptr;
  const Event* first_wait = nullptr;
  const Event* first_reserve = nullptr;
  const Event* first_opaque = nullptr; // a call it does not model that may push or pop it
  std::int64_t max_reserve = 0;
  std::int64_t max_wait = 0; // the most pages a constant cb_wait_front asks for
  // Every cb_wait_front asks for a constant number of pages, or for a block repeated by a loop
  // (not for a count it waits for once, as a reader of a CB holding all its pages does).
  bool waits_blockwise = true;
  std::optional<Poly> block; // the pages of a repeated wait whose count is not a constant
};

/// One kernel's totals of one CB.
struct Side {
  const Kernel* kernel;
  Totals totals;
};

/// The balance of every CB that `producers` push and `consumers` pop (kernel by kernel, each CB's
/// totals): proved facts to `proved`, deadlocks and what it cannot prove to `diags`.
void balance(const std::vector<Kernel>& kernels,
             std::map<std::int64_t, std::vector<Side>>& producers,
             std::map<std::int64_t, std::vector<Side>>& consumers, const CheckOptions& options,
             Diagnostics& diags, std::vector<std::string>& proved);

} // namespace tk::check
