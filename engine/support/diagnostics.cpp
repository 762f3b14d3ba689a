// GCC-style rendering of diagnostics, with the source line and a caret under the span.
#include "engine/support/diagnostics.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "engine/support/source_manager.h"
#include "engine/support/terminal_text.h"

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
  // File names, JSON pointers (whose keys are the file's) and messages quote user text.
  std::ostringstream out;
  const DiagLocation& loc = diag.loc;
  if (loc.range.is_valid() && sources_ != nullptr) {
    LineCol lc = sources_->line_col(loc.range.file, loc.range.begin);
    out << escape_for_terminal(sources_->name(loc.range.file)) << ":" << lc.line << ":" << lc.col
        << ": ";
  } else if (!loc.file.empty()) {
    out << escape_for_terminal(loc.file) << ": ";
    if (!loc.json_path.empty()) out << escape_for_terminal(loc.json_path) << ": ";
  } else if (!loc.json_path.empty()) {
    out << escape_for_terminal(loc.json_path) << ": ";
  }
  out << severity_name(diag.severity) << ": " << escape_for_terminal(diag.message);
  return out.str();
}

void DiagnosticEngine::render_one(std::ostream& out, const Diagnostic& diag) const {
  out << format_header(diag) << "\n";
  const SourceRange& range = diag.loc.range;
  if (!range.is_valid() || sources_ == nullptr) return;
  LineCol lc = sources_->line_col(range.file, range.begin);
  std::string_view line = sources_->line_text(range.file, lc.line);
  // The line is echoed escaped (tabs kept), in three parts so that the caret and the tildes
  // stand under the escaped text of the span.
  size_t begin = std::min<size_t>(lc.col - 1, line.size());
  size_t length = std::min<size_t>(range.end > range.begin ? range.end - range.begin : 1,
                                   line.size() - begin);
  std::string before = escape_lines_for_terminal(line.substr(0, begin));
  std::string spanned = escape_lines_for_terminal(line.substr(begin, length));
  std::string after = escape_lines_for_terminal(line.substr(begin + length));
  std::string number = std::to_string(lc.line);
  out << " " << number << " | " << before << spanned << after << "\n";
  out << " " << std::string(number.size(), ' ') << " | ";
  // One blank per character, tabs kept, so the caret lines up with the echoed line.
  std::string_view rest = before;
  for (size_t tab = rest.find('\t'); tab != std::string_view::npos; tab = rest.find('\t')) {
    out << std::string(terminal_columns(rest.substr(0, tab)), ' ') << '\t';
    rest.remove_prefix(tab + 1);
  }
  out << std::string(terminal_columns(rest), ' ') << '^';
  for (size_t i = 1; i < terminal_columns(spanned); ++i) out << '~';
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
