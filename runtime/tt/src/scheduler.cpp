// Cooperative, deterministic execution: every kernel instance is a Boost.Context fiber; the
// scheduler resumes them round-robin (cores in row-major order, kernels in creation order) and
// resumes a blocked fiber only once its wait holds. A round in which nothing can run is a deadlock.
// In timing mode (timing.hpp) it resumes the runnable kernel with the smallest clock instead.
//
// AddressSanitizer tracks one stack per thread; every switch between the scheduler's stack and a
// fiber's must be announced with its fiber API, or the first throw (or other no-return call) on a
// fiber stack makes it unpoison the wrong range and report false stack-buffer-overflows later.
// Boost.Context's BOOST_USE_ASAN does this only in its ucontext backend, which Debian's
// libboost_context (built for fcontext: jump_fcontext/ontop_fcontext) does not provide, so the
// switches are annotated here: every __sanitizer_start_switch_fiber on one stack is paired with one
// __sanitizer_finish_switch_fiber on the other.
#include <boost/context/protected_fixedsize_stack.hpp>

#include "state.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define TK_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TK_EMU_ASAN 1
#endif
#endif
#if defined(TK_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace tk::rt::emu {
namespace {
namespace ctx = boost::context;

Fiber* g_current = nullptr;
std::uint64_t g_epoch = 0;
const std::vector<std::unique_ptr<Fiber>>* g_fibers = nullptr; // the running launch's

// Called on the stack being left, right before the switch; `fake_stack_save` null means the
// stack being left is never resumed (its fiber has finished).
void start_switch([[maybe_unused]] void** fake_stack_save, [[maybe_unused]] const void* bottom,
                  [[maybe_unused]] std::size_t size) {
#if defined(TK_EMU_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#endif
}
// Called on the stack switched to, right after the switch; reports the stack that was left.
void finish_switch([[maybe_unused]] void* fake_stack_save, [[maybe_unused]] const void** bottom_old,
                   [[maybe_unused]] std::size_t* size_old) {
#if defined(TK_EMU_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#endif
}

// Clears AddressSanitizer's poison from a fiber stack. A fiber's last frames never return (it
// leaves its stack with a switch), so their redzones stay poisoned; a later stack mapped at the
// same address would inherit them and report false stack-buffer-overflows (seen in tk-difftest,
// which runs hundreds of launches in one process).
void unpoison([[maybe_unused]] const ctx::stack_context& s) {
#if defined(TK_EMU_ASAN)
  __asan_unpoison_memory_region(static_cast<const char*>(s.sp) - s.size, s.size);
#endif
}

// The fiber's stack allocator, recording the stack's bounds for the annotations.
struct FiberStack {
  ctx::protected_fixedsize_stack inner{1 << 20}; // 1 MiB and a guard page
  Fiber* fiber;
  ctx::stack_context allocate() {
    ctx::stack_context s = inner.allocate();
    unpoison(s);
    fiber->stack_bottom = static_cast<const char*>(s.sp) - s.size;
    fiber->stack_size = s.size;
    return s;
  }
  void deallocate(ctx::stack_context& s) noexcept {
    unpoison(s);
    inner.deallocate(s);
  }
};

// The fiber of kernel `f`. Its constructor enters the new stack and comes straight back
// (Boost.Context's set-up) without a throw or another no-return call there, so that round trip
// needs no annotation; the scheduler creates it right before resuming it for the first time, so
// every existing fiber has run the entry below and annotates its side of every later switch.
ctx::fiber make_fiber(Fiber* f) {
  return ctx::fiber(std::allocator_arg, FiberStack{.fiber = f}, [f](ctx::fiber&& scheduler) {
    finish_switch(nullptr, &f->scheduler_stack_bottom, &f->scheduler_stack_size);
    f->scheduler = &scheduler;
    try {
      f->entry();
      check_noc_idle();
    } catch (const ctx::detail::forced_unwind&) {
      // The scheduler is destroying this unfinished fiber; Boost.Context switches back to it
      // once the stack has unwound.
      start_switch(nullptr, f->scheduler_stack_bottom, f->scheduler_stack_size);
      throw;
    } catch (const std::exception& e) {
      f->error = e.what();
    } catch (...) {
      f->error = "unknown exception";
    }
    f->done = true;
    start_switch(nullptr, f->scheduler_stack_bottom, f->scheduler_stack_size);
    return std::move(scheduler);
  });
}

// Runs `f` until it blocks or finishes.
void resume(Fiber& f) {
  if (!f.context)
    f.context = make_fiber(&f);
  void* fake_stack = nullptr;
  start_switch(&fake_stack, f.stack_bottom, f.stack_size);
  f.context = std::move(f.context).resume();
  finish_switch(fake_stack, nullptr, nullptr);
}

// Destroys the fiber of a kernel that has not finished (another kernel failed, or the run
// deadlocked): Boost.Context throws forced_unwind where it waits in block(), its stack unwinds
// (running the destructors there) and it switches back here for the last time.
void unwind(Fiber& f) {
  if (!f.context)
    return;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, f.stack_bottom, f.stack_size);
  f.context = ctx::fiber();
  finish_switch(fake_stack, nullptr, nullptr);
}

std::string pages(std::uint32_t n, const char* what) {
  return std::to_string(n) + (n == 1 ? " page " : " pages ") + what;
}

bool satisfied(const Fiber& f) {
  const Wait& w = f.wait;
  switch (w.kind) {
  case WaitKind::Reserve:
    return f.core->cbs[w.cb].free_pages() >= w.pages;
  case WaitKind::Front:
    return f.core->cbs[w.cb].available() >= w.pages;
  case WaitKind::Semaphore:
    return w.at_least ? *w.sem >= w.value : *w.sem == w.value;
  case WaitKind::None:
  case WaitKind::Poll:
  case WaitKind::Yield:
    return true;
  }
  return true;
}

std::string describe_wait(const Fiber& f) {
  const Wait& w = f.wait;
  const CbState* cb = w.cb < arch::kMaxCircularBuffers ? &f.core->cbs[w.cb] : nullptr;
  switch (w.kind) {
  case WaitKind::Reserve:
    return "waits in cb_reserve_back(" + cb_name(w.cb) + ", " + std::to_string(w.pages) +
           "): " + pages(cb->free_pages(), "free");
  case WaitKind::Front:
    return "waits in cb_wait_front(" + cb_name(w.cb) + ", " + std::to_string(w.pages) +
           "): " + pages(cb->available(), "available");
  case WaitKind::Semaphore:
    return std::string("waits in ") +
           (w.at_least ? "noc_semaphore_wait_min(" : "noc_semaphore_wait(") +
           hex(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(w.sem) -
                                          reinterpret_cast<std::uintptr_t>(f.core->l1))) +
           ", " + std::to_string(w.value) + "): value is " + std::to_string(*w.sem);
  case WaitKind::Poll:
    return "polls " + w.what;
  case WaitKind::None:
  case WaitKind::Yield:
    return "is runnable";
  }
  return "";
}

// For a kernel blocked in cb_wait_front, the kernels on its core that push the CB; in
// cb_reserve_back, those that pop it: whether each has finished and how many pages it moved.
std::string describe_other_side(const Fiber& f, const std::vector<std::unique_ptr<Fiber>>& fibers) {
  const Wait& w = f.wait;
  if (w.kind != WaitKind::Front && w.kind != WaitKind::Reserve)
    return "";
  const bool front = w.kind == WaitKind::Front;
  const std::string head =
      std::string("\n    ") + (front ? "producer of " : "consumer of ") + cb_name(w.cb) + ": ";
  std::string lines;
  for (const auto& gp : fibers) {
    const Fiber& g = *gp;
    const CbUse& use = g.cb_use[w.cb];
    if (g.core != f.core || !(front ? use.produces : use.consumes))
      continue;
    const std::uint32_t n = front ? use.pushed : use.popped;
    lines += head + g.kernel->path + (g.done ? ", finished after " : ", blocked after ") +
             (front ? "pushing " : "popping ") + std::to_string(n) + (n == 1 ? " page" : " pages") +
             (g.done ? " in total" : " so far");
  }
  if (lines.empty()) {
    lines = head + "none (no kernel on core (" + std::to_string(f.core->logical.x) + "," +
            std::to_string(f.core->logical.y) + ") called " +
            (front ? "cb_reserve_back or cb_push_back" : "cb_wait_front or cb_pop_front") +
            " on it)";
  }
  return lines;
}

std::string where(const Fiber& f) {
  return "core (" + std::to_string(f.core->logical.x) + "," + std::to_string(f.core->logical.y) +
         ") " + f.kernel->path;
}
} // namespace

Fiber& current() {
  if (g_current == nullptr)
    throw EmulatorError("a kernel API function was called outside a running kernel");
  return *g_current;
}

void fail(const std::string& message) {
  throw EmulatorError(message);
}

void note_progress() {
  ++g_epoch;
}

void block(Wait wait) {
  Fiber& f = current();
  f.wait = std::move(wait);
  if (f.wait.kind != WaitKind::Poll && f.wait.kind != WaitKind::Yield && satisfied(f)) {
    f.wait = Wait{};
    return;
  }
  start_switch(&f.fake_stack, f.scheduler_stack_bottom, f.scheduler_stack_size);
  try {
    *f.scheduler = std::move(*f.scheduler).resume();
  } catch (const boost::context::detail::forced_unwind&) {
    finish_switch(f.fake_stack, &f.scheduler_stack_bottom, &f.scheduler_stack_size);
    throw; // unwind() is destroying this fiber
  }
  finish_switch(f.fake_stack, &f.scheduler_stack_bottom, &f.scheduler_stack_size);
  f.wait = Wait{};
}

void yield_if_behind() {
  Fiber& f = current();
  for (const auto& g : *g_fibers) {
    if (g.get() != &f && !g->done && g->time.clock < f.time.clock && satisfied(*g)) {
      block(Wait{.kind = WaitKind::Yield});
      return;
    }
  }
}

namespace {
[[noreturn]] void report_deadlock(const std::vector<std::unique_ptr<Fiber>>& fibers) {
  std::string report = "deadlock: every kernel is blocked";
  for (const auto& fp : fibers) {
    if (!fp->done)
      report += "\n  " + where(*fp) + " " + describe_wait(*fp) + describe_other_side(*fp, fibers);
  }
  throw EmulatorError(report);
}

// Runs `f` until it blocks or finishes; returns whether it finished.
bool step(Fiber& f) {
  l1_window_enter(active_device(), *f.core);
  g_current = &f;
  resume(f);
  g_current = nullptr;
  if (!f.error.empty())
    throw EmulatorError(f.kernel->path + ": core (" + std::to_string(f.core->logical.x) + "," +
                        std::to_string(f.core->logical.y) + "): " + f.error);
  return f.done;
}

// Timing mode: always the runnable kernel with the smallest clock (the earliest in scheduling
// order on a tie), a polling one only when nothing else can run. Polls that change nothing, one
// round of every polling kernel, are a deadlock.
void run_timed(std::vector<std::unique_ptr<Fiber>>& fibers) {
  std::size_t live = fibers.size();
  std::size_t idle_polls = 0;
  while (live > 0) {
    Fiber* next = nullptr;
    Fiber* next_poll = nullptr;
    std::size_t polls = 0;
    for (auto& fp : fibers) {
      Fiber& f = *fp;
      if (f.done || !satisfied(f))
        continue;
      Fiber*& best = f.wait.kind == WaitKind::Poll ? next_poll : next;
      polls += f.wait.kind == WaitKind::Poll;
      if (best == nullptr || f.time.clock < best->time.clock)
        best = &f;
    }
    const bool poll = next == nullptr;
    if (poll)
      next = next_poll;
    if (next == nullptr || (poll && idle_polls > polls))
      report_deadlock(fibers);
    const std::uint64_t epoch = g_epoch;
    if (step(*next))
      --live;
    idle_polls = poll && epoch == g_epoch && !next->done ? idle_polls + 1 : 0;
  }
}
} // namespace

void run_fibers(std::vector<std::unique_ptr<Fiber>>& fibers) {
  // Whatever ends the run, no fiber outlives it: unfinished ones are unwound here, where the
  // switches into them are annotated, not by ~Fiber.
  struct Unwind {
    std::vector<std::unique_ptr<Fiber>>& fibers;
    ~Unwind() {
      g_current = nullptr;
      l1_window_leave();
      for (auto& fp : fibers)
        unwind(*fp);
    }
  } unwind_guard{fibers};
  g_fibers = &fibers;
  if (timing::on()) {
    run_timed(fibers);
    return;
  }
  std::size_t live = fibers.size();
  while (live > 0) {
    bool progress = false;
    const std::uint64_t epoch = g_epoch;
    for (auto& fp : fibers) {
      Fiber& f = *fp;
      if (f.done)
        continue;
      const bool poll = f.wait.kind == WaitKind::Poll;
      if (!satisfied(f))
        continue;
      if (!poll)
        progress = true;
      if (step(f)) {
        --live;
        progress = true;
      }
    }
    if (!progress && epoch == g_epoch)
      report_deadlock(fibers);
  }
}
} // namespace tk::rt::emu
