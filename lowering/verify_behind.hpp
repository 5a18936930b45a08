// ir::verify after every stage of a chain (PipelineOptions::verify_each), run on a thread of its
// own one stage behind the chain: while stage k+1 runs on the module stage k made, the module of
// stage k is verified beside it. ttgen's lowering chains are the longest path of a run and the
// second core has nothing to do then (docs/ttgen.md, "Start-up").
//
// What is reported is unchanged: the first broken invariant, with the stage that broke it (the
// same tk::InternalError), and nothing after it: a verification error takes precedence over
// what a later stage reported or threw, and the chain waits for every verification before it
// returns. The one difference: a stage that crashes outright on the broken module it was given
// (a segfault, not an exception) stops the process before the report. With stage dumps asked for
// (--print-after and the like), verification stays in step with the chain, so that no dump of a
// later stage is printed before the error.
#pragma once

#include "lowering/ir/module.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace tk::lower {

class VerifyBehind {
public:
  /// `behind`: verify on the thread (else at once, in check()).
  explicit VerifyBehind(bool behind) : behind_(behind) {}
  ~VerifyBehind();
  VerifyBehind(const VerifyBehind&) = delete;
  VerifyBehind& operator=(const VerifyBehind&) = delete;

  /// Verifies `m`, the module stage `stage` made (queued when behind; the module is kept alive
  /// until verified).
  void check(std::shared_ptr<const ir::Module> m, std::string stage);
  /// Waits for every queued verification; throws the first one's error (tk::InternalError).
  void finish();

private:
  void work();

  const bool behind_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::shared_ptr<const ir::Module>, std::string>> queue_;
  bool busy_ = false, closing_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

} // namespace tk::lower
