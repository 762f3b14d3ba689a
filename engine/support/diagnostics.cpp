// GCC-style rendering of diagnostics, with the source line and a caret under the span.
#include "engine/support/diagnostics.h"

#include <ostream>
#include <sstream>

#include "engine/support/source_manager.h"

namespace graft {
namespace {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

}  // namespace

Diagnostic& DiagnosticEngine::report(Severity severity, DiagLocation loc, std::string message) {
  if (severity == Severity::kError) {
    ++error_count_;
    if (error_count_ > max_errors_) {
      overflow_ = Diagnostic{};
      return overflow_;
    }
  } else if (severity == Severity::kWarning) {
    ++warning_count_;
  }
  diagnostics_.push_back(Diagnostic{severity, std::move(loc), std::move(message), {}});
  return diagnostics_.back();
}

void DiagnosticEngine::add_note(Diagnostic& diag, DiagLocation loc, std::string message) {
  diag.notes.push_back(Diagnostic{Severity::kNote, std::move(loc), std::move(message), {}});
}

std::string DiagnosticEngine::format_header(const Diagnostic& diag) const {
  std::ostringstream out;
  const DiagLocation& loc = diag.loc;
  if (loc.range.is_valid() && sources_ != nullptr) {
    LineCol lc = sources_->line_col(loc.range.file, loc.range.begin);
    out << sources_->name(loc.range.file) << ":" << lc.line << ":" << lc.col << ": ";
  } else if (!loc.file.empty()) {
    out << loc.file << ": ";
    if (!loc.json_path.empty()) out << loc.json_path << ": ";
  } else if (!loc.json_path.empty()) {
    out << loc.json_path << ": ";
  }
  out << severity_name(diag.severity) << ": " << diag.message;
  return out.str();
}

void DiagnosticEngine::render_one(std::ostream& out, const Diagnostic& diag) const {
  out << format_header(diag) << "\n";
  const SourceRange& range = diag.loc.range;
  if (!range.is_valid() || sources_ == nullptr) return;
  LineCol lc = sources_->line_col(range.file, range.begin);
  std::string_view line = sources_->line_text(range.file, lc.line);
  std::string number = std::to_string(lc.line);
  out << " " << number << " | " << line << "\n";
  out << " " << std::string(number.size(), ' ') << " | ";
  // Tabs are kept so the caret lines up with the echoed line.
  for (uint32_t i = 0; i + 1 < lc.col && i < line.size(); ++i) out << (line[i] == '\t' ? '\t' : ' ');
  out << '^';
  uint32_t span_end = range.end;
  uint32_t line_end = range.begin + static_cast<uint32_t>(line.size()) - (lc.col - 1);
  if (span_end > line_end) span_end = line_end;
  for (uint32_t i = range.begin + 1; i < span_end; ++i) out << '~';
  out << "\n";
}

void DiagnosticEngine::render(std::ostream& out) const {
  for (const Diagnostic& diag : diagnostics_) {
    render_one(out, diag);
    for (const Diagnostic& note : diag.notes) render_one(out, note);
  }
  if (error_count_ > max_errors_) {
    out << "fatal: too many errors (" << error_count_ << "), stopping after " << max_errors_
        << "\n";
  }
}

std::string DiagnosticEngine::render() const {
  std::ostringstream out;
  render(out);
  return out.str();
}

}  // namespace graft
