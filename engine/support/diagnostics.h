// Diagnostics: every user-input error becomes a located Diagnostic, collected by a
// DiagnosticEngine and rendered GCC-style:
//   fuse.rules:12:7: error: unknown op 'conv2' (did you mean 'conv2d'?)
//      12 |   y = conv2(x, w)
//         |       ^~~~~
//   model.json: /nodes/17/args/0: error: reference to undefined node 'conv9'
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/support/location.h"

namespace graft {

class SourceManager;

enum class Severity { kError, kWarning, kNote };

/// Where a diagnostic points: a source range (rules text, JSON text), or a file plus a JSON
/// pointer (model.json paths), or just a file, or nothing (command-line problems).
struct DiagLocation {
  SourceRange range;      // valid when the position is known in a managed buffer
  std::string file;       // used when `range` is invalid
  std::string json_path;  // JSON pointer such as "/nodes/17/args/0"; may be empty

  static DiagLocation at(SourceRange r) { return {r, {}, {}}; }
  static DiagLocation in_file(std::string f) { return {{}, std::move(f), {}}; }
  static DiagLocation in_json(std::string f, std::string path) {
    return {{}, std::move(f), std::move(path)};
  }
};

struct Diagnostic {
  Severity severity = Severity::kError;
  DiagLocation loc;
  std::string message;
  std::vector<Diagnostic> notes;
};

/// Collects diagnostics. Errors beyond `max_errors` are counted but not stored; rendering then
/// ends with "too many errors".
class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceManager* sources = nullptr, int max_errors = 20)
      : sources_(sources), max_errors_(max_errors) {}

  /// Reports a diagnostic and returns it so notes can be attached.
  Diagnostic& report(Severity severity, DiagLocation loc, std::string message);
  Diagnostic& error(DiagLocation loc, std::string message) {
    return report(Severity::kError, std::move(loc), std::move(message));
  }
  Diagnostic& warning(DiagLocation loc, std::string message) {
    return report(Severity::kWarning, std::move(loc), std::move(message));
  }
  static void add_note(Diagnostic& diag, DiagLocation loc, std::string message);

  int error_count() const { return error_count_; }
  int warning_count() const { return warning_count_; }
  bool has_errors() const { return error_count_ > 0; }
  bool too_many_errors() const { return error_count_ >= max_errors_; }
  int max_errors() const { return max_errors_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  void set_sources(const SourceManager* sources) { sources_ = sources; }

  /// Renders every stored diagnostic (with notes, source lines and carets).
  void render(std::ostream& out) const;
  std::string render() const;
  /// Renders one diagnostic without notes: "file:line:col: error: message".
  std::string format_header(const Diagnostic& diag) const;

 private:
  void render_one(std::ostream& out, const Diagnostic& diag) const;

  const SourceManager* sources_;
  int max_errors_;
  int error_count_ = 0;
  int warning_count_ = 0;
  std::vector<Diagnostic> diagnostics_;
  Diagnostic overflow_;  // sink for errors past the limit
};

}  // namespace graft
