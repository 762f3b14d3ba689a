// SourceManager owns the text of every input buffer (rule files, model JSON) so diagnostics can
// turn a byte offset into line:col and show the source line with a caret under it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/support/location.h"

namespace graft {

class SourceManager {
 public:
  SourceManager() = default;
  // Buffers are referenced by id from ASTs and diagnostics; copying would orphan those ids.
  SourceManager(const SourceManager&) = delete;
  SourceManager& operator=(const SourceManager&) = delete;

  /// Registers a buffer and returns its id (never 0).
  FileId add_buffer(std::string name, std::string text);

  const std::string& name(FileId file) const;
  std::string_view text(FileId file) const;
  LineCol line_col(FileId file, uint32_t offset) const;
  /// The text of 1-based line `line`, without its newline.
  std::string_view line_text(FileId file, uint32_t line) const;
  size_t buffer_count() const { return buffers_.size(); }

 private:
  struct Buffer {
    std::string name;
    std::string text;
    std::vector<uint32_t> line_starts;  // byte offset of each line start
  };
  const Buffer& buffer(FileId file) const;
  std::vector<Buffer> buffers_;
};

}  // namespace graft
