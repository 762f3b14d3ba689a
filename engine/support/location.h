// Source positions for diagnostics: a byte range in a buffer owned by a SourceManager.
#pragma once

#include <cstdint>

namespace graft {

/// Identifies a buffer registered with a SourceManager; 0 means "no file".
using FileId = uint32_t;

/// A half-open byte range [begin, end) inside one source buffer.
struct SourceRange {
  FileId file = 0;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool is_valid() const { return file != 0; }
};

/// A resolved position, 1-based like every compiler prints it.
struct LineCol {
  uint32_t line = 0;
  uint32_t col = 0;
};

}  // namespace graft
