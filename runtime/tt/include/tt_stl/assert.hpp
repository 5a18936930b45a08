// TT_FATAL, TT_THROW and TT_ASSERT (mirrors tt_stl/tt_stl/assert.hpp of tt-metal): a failed check
// throws std::runtime_error whose message is "<TYPE> @ <file>:<line>: <condition>", then "info:"
// and the formatted message (the SDK appends a backtrace; the emulator does not). TT_ASSERT checks
// only when DEBUG is defined, as in the SDK. Formatting is Debian's libfmt.
#pragma once
#include <fmt/core.h>

#include <iostream> // as the SDK's, which reaches std::cout into programs
#include <sstream>
#include <stdexcept>
#include <string>

namespace tt::assert::detail {

template <typename... Args>
[[noreturn]] void tt_throw_impl(const char* file, int line, const char* assert_type,
                                const char* condition_str, const Args&... args) {
  std::stringstream message;
  message << assert_type << " @ " << file << ":" << line << ": " << condition_str << std::endl;
  if constexpr (sizeof...(args) > 0) {
    message << "info:" << std::endl;
    message << fmt::format(args...) << std::endl;
  }
  throw std::runtime_error(message.str());
}

[[noreturn]] inline void tt_throw(char const* file, int line, char const* assert_type,
                                  char const* condition_str) {
  tt_throw_impl(file, line, assert_type, condition_str);
}

template <typename... Args>
[[noreturn]] void tt_throw(const char* file, int line, const char* assert_type,
                           const char* condition_str, fmt::format_string<const Args&...> fmt,
                           const Args&... args) {
  tt_throw_impl(file, line, assert_type, condition_str, fmt, args...);
}

inline void tt_assert(char const* file, int line, char const* assert_type, bool condition,
                      char const* condition_str) {
  if (!condition)
    tt_throw(file, line, assert_type, condition_str);
}

template <typename... Args>
inline void tt_assert(const char* file, int line, const char* assert_type, bool condition,
                      const char* condition_str, fmt::format_string<const Args&...> fmt,
                      const Args&... args) {
  if (!condition)
    tt_throw(file, line, assert_type, condition_str, fmt, args...);
}

} // namespace tt::assert::detail

#ifdef DEBUG
#ifndef TT_ASSERT
#define TT_ASSERT(condition, ...)                                                                  \
  do {                                                                                             \
    if (not(condition)) [[unlikely]]                                                               \
      tt::assert::detail::tt_assert(__FILE__, __LINE__, "TT_ASSERT", (condition), #condition,      \
                                    ##__VA_ARGS__);                                                \
  } while (0)
#endif
#else
#define TT_ASSERT(condition, ...)                                                                  \
  do {                                                                                             \
    (void)(condition);                                                                             \
  } while (0)
#endif

#ifndef TT_THROW
#define TT_THROW(...)                                                                              \
  tt::assert::detail::tt_throw(__FILE__, __LINE__, "TT_THROW", "tt::exception", ##__VA_ARGS__)
#endif

#ifndef TT_FATAL
#define TT_FATAL(condition, message, ...)                                                          \
  do {                                                                                             \
    if (not(condition)) [[unlikely]] {                                                             \
      tt::assert::detail::tt_throw(__FILE__, __LINE__, "TT_FATAL", #condition, message,            \
                                   ##__VA_ARGS__);                                                 \
      __builtin_unreachable();                                                                     \
    }                                                                                              \
  } while (0)
#endif
