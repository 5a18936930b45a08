#include "lowering/verify_behind.hpp"

#include "lowering/ir/verifier.hpp"

namespace tk::lower {

VerifyBehind::~VerifyBehind() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void VerifyBehind::check(std::shared_ptr<const ir::Module> m, std::string stage) {
  if (!behind_) {
    ir::verify(*m, stage);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_)
      return; // the first error is the one reported; later modules are not checked
    queue_.emplace_back(std::move(m), std::move(stage));
    if (!thread_.joinable())
      thread_ = std::thread([this] { work(); });
  }
  changed_.notify_all();
}

void VerifyBehind::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
  if (error_)
    std::rethrow_exception(std::exchange(error_, nullptr));
}

void VerifyBehind::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (closing_)
      return; // the chain is done (or unwinding): nothing left it will wait for
    auto [m, stage] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      ir::verify(*m, stage);
    } catch (...) {
      error = std::current_exception();
    }
    m.reset(); // freed here, not under the lock
    lock.lock();
    busy_ = false;
    if (error && !error_) {
      error_ = error;
      queue_.clear(); // later stages' modules: the first error is the one reported
    }
    changed_.notify_all();
  }
}

} // namespace tk::lower
