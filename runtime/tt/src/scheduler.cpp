// Cooperative, deterministic execution: every kernel instance is a Boost.Context fiber; the
// scheduler resumes them round-robin (cores in row-major order, kernels in creation order) and
// resumes a blocked fiber only once its wait holds. A round in which nothing can run is a deadlock.
#include <boost/context/protected_fixedsize_stack.hpp>

#include "state.hpp"

namespace tk::rt::emu {
namespace {
Fiber* g_current = nullptr;
std::uint64_t g_epoch = 0;

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
    return true;
  }
  return true;
}

std::string describe_wait(const Fiber& f) {
  const Wait& w = f.wait;
  const CbState* cb = w.cb < kNumCircularBuffers ? &f.core->cbs[w.cb] : nullptr;
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
    return "is runnable";
  }
  return "";
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
  if (f.wait.kind != WaitKind::Poll && satisfied(f)) {
    f.wait = Wait{};
    return;
  }
  *f.scheduler = std::move(*f.scheduler).resume();
  f.wait = Wait{};
}

void run_fibers(std::vector<std::unique_ptr<Fiber>>& fibers) {
  namespace ctx = boost::context;
  for (auto& fp : fibers) {
    Fiber* f = fp.get();
    f->context = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(1 << 20),
                            [f](ctx::fiber&& scheduler) {
                              f->scheduler = &scheduler;
                              try {
                                f->entry();
                              } catch (const ctx::detail::forced_unwind&) {
                                throw;
                              } catch (const std::exception& e) {
                                f->error = e.what();
                              } catch (...) {
                                f->error = "unknown exception";
                              }
                              f->done = true;
                              return std::move(scheduler);
                            });
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
      g_current = &f;
      f.context = std::move(f.context).resume();
      g_current = nullptr;
      if (!f.error.empty())
        throw EmulatorError(f.kernel->path + ": core (" + std::to_string(f.core->logical.x) + "," +
                            std::to_string(f.core->logical.y) + "): " + f.error);
      if (f.done) {
        --live;
        progress = true;
      }
    }
    if (!progress && epoch == g_epoch) {
      std::string report = "deadlock: every kernel is blocked";
      for (auto& fp : fibers) {
        if (!fp->done)
          report += "\n  " + where(*fp) + " " + describe_wait(*fp);
      }
      throw EmulatorError(report);
    }
  }
}
} // namespace tk::rt::emu
