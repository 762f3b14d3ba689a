// Buffer ownership and offset -> line:col translation.
#include "engine/support/source_manager.h"

#include <algorithm>

#include "engine/support/check.h"

namespace graft {

FileId SourceManager::add_buffer(std::string name, std::string text) {
  Buffer buf{std::move(name), std::move(text), {0}};
  for (uint32_t i = 0; i < buf.text.size(); ++i) {
    if (buf.text[i] == '\n') buf.line_starts.push_back(i + 1);
  }
  buffers_.push_back(std::move(buf));
  return static_cast<FileId>(buffers_.size());
}

const SourceManager::Buffer& SourceManager::buffer(FileId file) const {
  GRAFT_CHECK(file >= 1 && file <= buffers_.size()) << "bad file id " << file;
  return buffers_[file - 1];
}

const std::string& SourceManager::name(FileId file) const { return buffer(file).name; }

std::string_view SourceManager::text(FileId file) const { return buffer(file).text; }

LineCol SourceManager::line_col(FileId file, uint32_t offset) const {
  const Buffer& buf = buffer(file);
  auto it = std::upper_bound(buf.line_starts.begin(), buf.line_starts.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - buf.line_starts.begin());
  return {line, offset - buf.line_starts[line - 1] + 1};
}

std::string_view SourceManager::line_text(FileId file, uint32_t line) const {
  const Buffer& buf = buffer(file);
  if (line == 0 || line > buf.line_starts.size()) return {};
  uint32_t begin = buf.line_starts[line - 1];
  uint32_t end = line < buf.line_starts.size() ? buf.line_starts[line] - 1
                                               : static_cast<uint32_t>(buf.text.size());
  std::string_view text(buf.text);
  std::string_view result = text.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

}  // namespace graft
