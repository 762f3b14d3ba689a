// Where the rewrite driver's diagnostics about a rule point: a source range in the rules text
// (file:line:col and a caret line, when the DiagnosticEngine holds the SourceManager the rules
// were loaded into), else the position lowering wrote down as text ("fuse.rules:12:7").
#pragma once

#include <string>

#include "engine/match/pattern.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// At the rule's name.
inline DiagLocation rule_location(const Rule& rule) { return {rule.range, rule.loc, {}}; }

/// At `range` of `rule` (written down as `loc`), or at the rule's name where that is unknown.
inline DiagLocation rule_location(const Rule& rule, SourceRange range, const std::string& loc) {
  if (!range.is_valid() && loc.empty()) return rule_location(rule);
  return {range, loc.empty() ? rule.loc : loc, {}};
}

}  // namespace graft
