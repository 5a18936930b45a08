// A program: kernels, circular buffers, semaphores and runtime args for a set of cores.
#pragma once
#include <cstdint>
#include <memory>

namespace tt::tt_metal {
namespace detail {
struct ProgramImpl;
}

class Program {
public:
  Program();
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  detail::ProgramImpl& impl() const { return *impl_; }

private:
  std::unique_ptr<detail::ProgramImpl> impl_;
};
} // namespace tt::tt_metal
