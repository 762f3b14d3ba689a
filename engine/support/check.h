// GRAFT_CHECK / GRAFT_DCHECK / GRAFT_UNREACHABLE: assertions for programmer errors only.
// User input (rules text, model JSON, weights, flags) is never checked with these; it gets a
// Diagnostic instead. A failed check prints file:line, the message and "this is a bug in graft".
#pragma once

#include <sstream>
#include <string>

namespace graft::detail {

/// Collects the streamed message and aborts in its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

}  // namespace graft::detail

#define GRAFT_CHECK(cond) \
  if (cond) {             \
  } else                  \
    ::graft::detail::CheckFailure(__FILE__, __LINE__, #cond)

#ifdef NDEBUG
#define GRAFT_DCHECK(cond) \
  if (true) {              \
  } else                   \
    ::graft::detail::CheckFailure(__FILE__, __LINE__, #cond)
#else
#define GRAFT_DCHECK(cond) GRAFT_CHECK(cond)
#endif

#define GRAFT_UNREACHABLE() ::graft::detail::CheckFailure(__FILE__, __LINE__, "unreachable")
