// Box<T>: a heap-allocated T with value semantics (deep copy, deep ==), for recursive AST nodes.
// std::unique_ptr is move-only and compares addresses; std::indirect is C++26.
#pragma once

#include <memory>
#include <utility>

namespace tk {

template <class T>
class Box {
public:
  Box() : p_(std::make_unique<T>()) {}
  Box(T v) : p_(std::make_unique<T>(std::move(v))) {} // NOLINT: implicit on purpose
  Box(const Box& o) : p_(std::make_unique<T>(*o.p_)) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& o) {
    if (this != &o)
      p_ = std::make_unique<T>(*o.p_);
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;

  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }

  friend bool operator==(const Box& a, const Box& b) { return *a.p_ == *b.p_; }

private:
  std::unique_ptr<T> p_;
};

} // namespace tk
