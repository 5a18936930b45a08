// Where the command-queue dispatch runs (mirrors
// tt_metal/api/tt-metalium/dispatch_core_common.hpp). The emulator has no dispatch cores: the
// choice changes nothing.
#pragma once
#include <cstdint>
#include <optional>

namespace tt::tt_metal {
enum class DispatchCoreType : uint32_t { WORKER, ETH, COUNT };
enum class DispatchCoreAxis { ROW, COL, COUNT };

class DispatchCoreConfig {
public:
  DispatchCoreConfig() : type_(DispatchCoreType::WORKER) {}
  DispatchCoreConfig(DispatchCoreType type) : type_(type) {}
  DispatchCoreConfig(DispatchCoreType type, DispatchCoreAxis axis) : type_(type), axis_(axis) {}

  DispatchCoreType get_dispatch_core_type() const { return type_; }
  void set_dispatch_core_type(DispatchCoreType new_type) { type_ = new_type; }
  bool operator==(const DispatchCoreConfig& other) const = default;

private:
  DispatchCoreType type_;
  std::optional<DispatchCoreAxis> axis_;
};
} // namespace tt::tt_metal
