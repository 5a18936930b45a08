// ttgen check's rules at each event of a kernel's walk (docs/check.md, "What it proves"): the CB
// window a call may touch, DST's hand-over between MATH and PACK, NoC reads and writes against
// their barriers, pointers into freed pages, runtime-argument indices, and reserved pages a path
// never pushes.
#include "check/kernel_check.hpp"

#include <algorithm>
#include <set>

namespace tk::check {

void KernelCheck::event(const Event& e, State& s, const Poly& count, bool tally) {
  // A CB the architecture does not have: the index error, and nothing else about the call (its
  // window would only repeat the mistake: a get_write_ptr with "no page reserved").
  if (e.cb && !cb_in_range(e, *e.cb))
    return;
  for (const auto& [cb, tile] : e.reads)
    if (!cb_in_range(e, cb))
      return;
  switch (e.kind) {
  case EventKind::reserve:
  case EventKind::push:
  case EventKind::wait:
  case EventKind::pop:
    cb_event(e, s, count, tally);
    return;
  case EventKind::write_ptr:
    if (e.cb && consumed_.count(*e.cb) && s.cbs[*e.cb].reserved == 0) {
      // With pages of the CB waited for and none reserved, the write pointer is the front page
      // when the CB is full: then the ring's write page has wrapped onto its read page
      // (tt-metal's NoC_tile_transfer sends a page from get_write_ptr after cb_wait_front of a
      // 1-page CB). Proved when --cb says the CB holds exactly the pages waited for; else not
      // known.
      const std::optional<std::int64_t> front = s.cbs[*e.cb].front;
      if (!front || *front > 0) {
        if (!front || capacity(*e.cb) != *front) {
          const std::string n = front ? std::to_string(*front) : std::string("the");
          warning(e.range, "cannot prove: get_write_ptr(" + cb_name(*e.cb) +
                               ") with no page reserved points at the " + n +
                               " page(s) waited for only if " + cb_name(*e.cb) +
                               " holds exactly those (--cb " + cb_name(*e.cb) + "=" +
                               (front ? std::to_string(*front) : std::string("N")) + " proves it)");
        }
        return;
      }
      error(e, "get_write_ptr(" + cb_name(*e.cb) + "): no page of " + cb_name(*e.cb) +
                   " is reserved with cb_reserve_back here, so what is written there lies outside "
                   "the window the consumer reads");
    }
    return;
  case EventKind::read_ptr:
    if (e.cb && produced_.count(*e.cb) && s.cbs[*e.cb].front == 0)
      error(e, "get_read_ptr(" + cb_name(*e.cb) + "): no page of " + cb_name(*e.cb) +
                   " was waited for with cb_wait_front here, so what is read there may not have "
                   "arrived");
    return;
  case EventKind::acquire:
    if (s.dst != Dst::released && s.dst != Dst::unknown)
      error(e, "tile_regs_acquire: DST is already acquired (missing tile_regs_release?)");
    s.dst = Dst::acquired;
    return;
  // tile_regs_commit, _wait and _release after acquire_dst (mixing the two APIs): what the
  // hand-over is then is not modelled, so DST is unknown, never an error.
  case EventKind::commit:
    if (s.dst != Dst::acquired && s.dst != Dst::unknown && s.dst != Dst::held)
      error(e, "tile_regs_commit: DST was not acquired with tile_regs_acquire");
    s.dst = s.dst == Dst::acquired ? Dst::committed : Dst::unknown;
    return;
  case EventKind::dst_wait:
    if (s.dst != Dst::committed && s.dst != Dst::unknown && s.dst != Dst::held)
      error(e, "tile_regs_wait: DST was not committed with tile_regs_commit");
    s.dst = s.dst == Dst::committed ? Dst::waited : Dst::unknown;
    return;
  case EventKind::release:
    if (s.dst != Dst::waited && s.dst != Dst::unknown && s.dst != Dst::held)
      error(e, "tile_regs_release: DST was not waited for with tile_regs_wait");
    s.dst = s.dst == Dst::held ? Dst::unknown : Dst::released;
    return;
  // acquire_dst = tile_regs_acquire + tile_regs_wait, release_dst = tile_regs_commit +
  // tile_regs_release (tt_metal/hw/inc/api/compute/reg_api.h): between them MATH and PACK
  // both use DST.
  case EventKind::acquire_dst:
    if (s.dst != Dst::released && s.dst != Dst::unknown)
      error(e, "acquire_dst: DST is already acquired (missing release_dst?)");
    s.dst = Dst::held;
    return;
  case EventKind::release_dst:
    if (s.dst == Dst::released || s.dst == Dst::committed || s.dst == Dst::waited)
      error(e, "release_dst: DST was not acquired with acquire_dst");
    s.dst = Dst::released;
    return;
  case EventKind::opaque:
    opaque(e, s);
    return;
  case EventKind::ptr_take:
    if (e.cb)
      s.ptrs[e.var] = {*e.cb, nullptr};
    return;
  case EventKind::ptr_use:
    if (auto it = s.ptrs.find(e.var); it != s.ptrs.end() && it->second.second) {
      const Event& pop = *it->second.second;
      error(e, "'" + e.var + "' points into " + cb_name(it->second.first) + " (get_read_ptr) but " +
                   pop.name + "(" + cb_name(it->second.first) + ", " + pop.pages.str() +
                   ") freed those pages before this read: the producer may "
                   "already be overwriting them");
    }
    return;
  case EventKind::math:
    math(e, s);
    return;
  case EventKind::pack:
    pack(e, s);
    return;
  case EventKind::noc_read:
    if (!s.unwaited_read)
      s.unwaited_read = &e;
    return;
  case EventKind::noc_write:
    if (e.cb)
      s.unflushed.insert(*e.cb);
    return;
  case EventKind::read_barrier:
    s.unwaited_read = nullptr;
    return;
  case EventKind::write_flush:
    s.unflushed.clear();
    return;
  case EventKind::full_barrier:
    s.unwaited_read = nullptr;
    s.unflushed.clear();
    return;
  case EventKind::arg:
    if (e.arg_index)
      if (auto it = opts_.runtime_args.find(k_.role);
          it != opts_.runtime_args.end() && *e.arg_index >= it->second)
        error(e, "get_arg_val(" + std::to_string(*e.arg_index) + "): runtime arg " +
                     std::to_string(*e.arg_index) + " is never set (the host sets " +
                     std::to_string(it->second) + " for the " + to_string(k_.role) + ")");
    return;
  }
}

void KernelCheck::cb_event(const Event& e, State& s, const Poly& count, bool tally) {
  if (!e.cb) {
    warning(e.range, "cannot prove: the CB of " + e.call +
                         " is not a constant, so no CB is balanced against the other kernels");
    unknown_cb_ = true;
    // It may be any CB (a CircularBuffer built from a helper's parameter): a pack or push of
    // the CB it is later resolved to is then not held against an empty window.
    forget_every_cb(s);
    return;
  }
  const std::int64_t cb = *e.cb; // in range (event)
  Totals& t = totals_[cb];
  Window& w = s.cbs[cb];
  const std::optional<std::int64_t> n =
      e.pages.is_constant() ? std::optional<std::int64_t>(e.pages.constant_value()) : std::nullopt;
  const std::string call = e.name + "(" + cb_name(cb) + ", " + e.pages.str() + ")";
  const std::optional<std::int64_t> cap = capacity(cb);
  if (n && cap && *n > *cap && (e.kind == EventKind::reserve || e.kind == EventKind::wait))
    error(e, call + ": asks for " + pages(*n) + " but " + cb_name(cb) + " holds " + pages(*cap));
  switch (e.kind) {
  case EventKind::reserve:
    if (!t.first_reserve)
      t.first_reserve = &e;
    s.unpushed.try_emplace(cb, Unpushed{&e, path_, loops_});
    if (n)
      t.max_reserve = std::max(t.max_reserve, *n);
    if (w.reserved && n)
      w.reserved = std::max(*w.reserved, *n);
    else
      w.reserved.reset();
    return;
  case EventKind::push:
    if (!t.first_push)
      t.first_push = &e;
    s.unpushed.erase(cb);
    w.own = n && w.own ? std::optional<std::int64_t>(*w.own + *n) : std::nullopt;
    if (uncounted_ > 0)
      t.pushed.reset();
    else if (tally && t.pushed)
      t.pushed = *t.pushed + e.pages * count;
    if (n && w.reserved && *n > *w.reserved)
      error(e, call + ": pushes " + pages(*n) + " but only " + pages(*w.reserved) +
                   " reserved with cb_reserve_back");
    if (n && cap && w.wr && *w.wr + *n > *cap)
      error(e, call + ": pushing " + pages(*n) + " at page " + std::to_string(*w.wr) +
                   " runs past the end of " + cb_name(cb) + " (" + pages(*cap) +
                   "); pushes must add up to exactly " + std::to_string(*cap) +
                   " per lap of the ring");
    w.reserved = n && w.reserved
                     ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.reserved - *n))
                     : std::nullopt;
    w.packed = 0;
    w.wr = n && cap && w.wr ? std::optional<std::int64_t>((*w.wr + *n) % *cap) : std::nullopt;
    return;
  case EventKind::wait:
    if (!t.first_wait)
      t.first_wait = &e;
    wait_unpushed(e, s, w);
    if (n)
      t.max_wait = std::max(t.max_wait, *n);
    else if (count.is_constant())
      t.waits_blockwise = false;
    else if (!t.block)
      t.block = e.pages;
    if (w.front && n)
      w.front = std::max(*w.front, *n);
    else
      w.front.reset();
    return;
  case EventKind::pop:
    if (!t.first_pop)
      t.first_pop = &e;
    w.own = n && w.own ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.own - *n))
                       : std::nullopt;
    if (uncounted_ > 0)
      t.popped.reset();
    else if (tally && t.popped)
      t.popped = *t.popped + e.pages * count;
    if (n && w.front && *n > *w.front)
      error(e, call + ": pops " + pages(*n) + " but only " + pages(*w.front) +
                   " waited for with cb_wait_front");
    if (s.unflushed.count(cb))
      error(e, call + ": pops pages that a NoC write of this kernel may still be sending "
                      "(noc_async_writes_flushed or noc_async_write_barrier before "
                      "cb_pop_front)");
    if (n && cap && w.rd && *w.rd + *n > *cap)
      error(e, call + ": popping " + pages(*n) + " at page " + std::to_string(*w.rd) +
                   " runs past the end of " + cb_name(cb) + " (" + pages(*cap) +
                   "); pops must add up to exactly " + std::to_string(*cap) +
                   " per lap of the ring");
    w.front = n && w.front ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.front - *n))
                           : std::nullopt;
    // No page of the CB is held any more: every pointer into its front now points at freed
    // pages (one taken while more pages were held may point at one still held).
    if (w.front == 0)
      for (auto& [var, p] : s.ptrs)
        if (p.first == cb)
          p.second = &e;
    w.rd = n && cap && w.rd ? std::optional<std::int64_t>((*w.rd + *n) % *cap) : std::nullopt;
    return;
  default:
    return;
  }
}

void KernelCheck::math(const Event& e, State& s) {
  if (s.dst != Dst::acquired && s.dst != Dst::held && s.dst != Dst::unknown) {
    error(e, e.name + ": DST is used outside tile_regs_acquire ... tile_regs_commit");
    return;
  }
  if (!dst_in_range(e, e.name))
    return;
  for (const auto& [cb, tile] : e.reads) {
    const std::optional<std::int64_t> front = s.cbs[cb].front;
    if (front && tile >= *front)
      error(e, e.name + ": reads tile " + std::to_string(tile) + " of " + cb_name(cb) +
                   " but only " + pages(*front) + " were waited for with cb_wait_front");
  }
}

void KernelCheck::pack(const Event& e, State& s) {
  const std::string call = "pack_tile(" +
                           (e.dst.empty() ? std::string("?") : std::to_string(e.dst[0])) + ", " +
                           (e.cb ? cb_name(*e.cb) : std::string("?")) + ")";
  if (s.dst != Dst::waited && s.dst != Dst::held && s.dst != Dst::unknown) {
    error(e, call + ": DST is read outside tile_regs_wait ... tile_regs_release");
    return;
  }
  if (!dst_in_range(e, call) || !e.cb)
    return;
  Window& w = s.cbs[*e.cb];
  if (w.packed && w.reserved && *w.packed >= *w.reserved)
    error(e, call + ": packs into page " + std::to_string(*w.packed) + " of the back of " +
                 cb_name(*e.cb) + " but only " + pages(*w.reserved) +
                 (*w.reserved == 1 ? " is" : " are") + " reserved with cb_reserve_back");
  if (w.packed)
    ++*w.packed;
}

bool KernelCheck::dst_in_range(const Event& e, const std::string& what) {
  for (std::int64_t i : e.dst)
    if (i < 0 || i >= dst_tiles_) {
      error(e, what + ": DST index " + std::to_string(i) +
                   " is out of range: " + std::to_string(dst_tiles_) + " tiles fit in DST (" +
                   (opts_.fp32_dest ? "fp32" : "bf16") + ", half-sync)");
      return false;
    }
  return true;
}

void KernelCheck::opaque(const Event& e, State& s) {
  std::string what;
  if (e.opaque_cbs)
    what = e.cb ? cb_name(*e.cb) : std::string("every CB");
  if (e.opaque_dst)
    what += (what.empty() ? "" : " and ") + std::string("DST");
  warning(e.range, "cannot prove: ttgen check does not model " + e.name +
                       ", which calls the CB or DST API; the state of " + what +
                       " after it is unknown");
  if (e.opaque_dst)
    s.dst = Dst::unknown;
  if (!e.opaque_cbs)
    return;
  if (!e.cb) {
    unknown_cb_ = true;
    forget_every_cb(s);
    return;
  }
  s.cbs[*e.cb] = Window::unknown();
  Totals& t = totals_[*e.cb];
  t.pushed.reset();
  t.popped.reset();
  if (!t.first_opaque)
    t.first_opaque = &e;
  for (auto it = s.ptrs.begin(); it != s.ptrs.end();)
    it = it->second.first == *e.cb ? s.ptrs.erase(it) : std::next(it);
  s.unpushed.erase(*e.cb);
}

bool KernelCheck::cb_in_range(const Event& e, std::int64_t cb) {
  if (cb >= 0 && cb < num_cbs())
    return true;
  if (out_of_range_.insert(cb).second)
    error(e, e.name + ": CB index " + std::to_string(cb) + " is out of range (" +
                 std::to_string(num_cbs()) + " CBs on " + std::string(opts_.arch->name) + ")");
  return false;
}

void KernelCheck::forget_every_cb(State& s) const {
  for (std::int64_t cb = 0; cb < num_cbs(); ++cb)
    s.cbs[cb] = Window::unknown();
  s.ptrs.clear();
  s.unpushed.clear();
}

void KernelCheck::wait_unpushed(const Event& e, const State& s, const Window& w) {
  auto it = s.unpushed.find(*e.cb);
  const bool some =
      e.pages.is_constant() ? e.pages.constant_value() > 0 : e.pages.positive() == true;
  if (it == s.unpushed.end() || w.own != 0 || !some || others_push(*e.cb))
    return;
  const Event& r = *it->second.reserve;
  const std::string path = where(it->second.path);
  Diagnostic* d = error_at(
      r, "deadlock: " + normalized(r) + " reserves pages of " + cb_name(*e.cb) +
             " that are never pushed before " + normalized(e) + " waits for them" +
             (path.empty() ? "" : " (on the path " + path + ")") + "; no other kernel pushes " +
             cb_name(*e.cb) + ", so the wait blocks for good");
  if (d)
    d->notes.push_back(Diagnostic{
        Severity::note, k_.file.get(), e.range, cb_name(*e.cb) + " is waited for here", {}});
}

void KernelCheck::unpushed_at_end(const State& s) {
  for (const auto& [cb, u] : s.unpushed) {
    // A later iteration of a loop around the reserve may push the pages (a reserve that only
    // waits for room on the first K-block of a matmul, pushed on the last).
    const bool later = std::any_of(u.loops.begin(), u.loops.end(),
                                   [&](const Loop* l) { return may_push(l->body, cb); });
    const Kernel* consumer = u.path.empty() || later ? nullptr : other_consumer(cb);
    if (!consumer || !may_push(k_.body, cb))
      continue;
    Diagnostic* d = error_at(
        *u.reserve, normalized(*u.reserve) +
                        ": the kernel ends without pushing the pages reserved here on the path " +
                        where(u.path) + " (another path pushes them), while " +
                        file_name(*consumer) + " waits for pages of " + cb_name(cb));
    if (d)
      d->notes.push_back(Diagnostic{Severity::note,
                                    k_.file.get(),
                                    u.path.back().branch->range,
                                    "the path leaves this branch with them reserved",
                                    {}});
  }
}

std::string KernelCheck::where(const std::vector<Assumed>& path) {
  std::string out;
  for (const Assumed& a : path)
    out += (out.empty() ? "where '" : " and '") + a.branch->cond + "' is " +
           (a.value ? "true" : "false");
  return out;
}

std::string KernelCheck::normalized(const Event& e) {
  return e.name + "(" + cb_name(*e.cb) + ", " + e.pages.str() + ")";
}

bool KernelCheck::others_push(std::int64_t cb) const {
  for (const Kernel& k : kernels_)
    if (&k != &k_ && may_push(k.body, cb))
      return true;
  return false;
}

const Kernel* KernelCheck::other_consumer(std::int64_t cb) const {
  for (const Kernel& k : kernels_) {
    std::set<std::int64_t> produced, consumed;
    streamed(k.body, produced, consumed);
    if (&k != &k_ && consumed.count(cb))
      return &k;
  }
  return nullptr;
}

} // namespace tk::check
