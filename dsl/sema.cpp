// Sema's driver: collects the declarations of every file, reports duplicates, resolves
// opclasses, checks each rule, builds the phases (declared ones, then an implicit "default"
// phase for unlisted rules) and checks the tests against them.
#include "dsl/sema.h"

#include <algorithm>
#include <map>

#include "dsl/sema_internal.h"
#include "engine/support/edit_distance.h"

namespace graft::dsl {
namespace detail {
namespace {

using namespace ast;

/// Registers `name` in `table`, reporting a duplicate with a note at the first definition.
template <typename Decl>
bool declare(Sema& sema, std::map<std::string, const Decl*, std::less<>>& table, const Ident* name,
             const Decl* decl, const char* what) {
  auto [it, inserted] = table.emplace(std::string(name->text), decl);
  if (inserted) return true;
  Diagnostic& d = sema.error(
      name->range, std::string("duplicate ") + what + " '" + std::string(name->text) + "'");
  Sema::note(d, it->second->name->range,
             "previous definition of '" + std::string(name->text) + "' is here");
  return false;
}

}  // namespace

Binding* Scope::find(std::string_view name) {
  if (Binding* b = find_local(name)) return b;
  return parent_ != nullptr ? parent_->find(name) : nullptr;
}

Binding* Scope::find_local(std::string_view name) {
  for (Binding& b : bindings_) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

Binding& Scope::add(Binding binding) {
  bindings_.push_back(binding);
  return bindings_.back();
}

std::vector<std::string> Scope::names() const {
  std::vector<std::string> result =
      parent_ != nullptr ? parent_->names() : std::vector<std::string>{};
  for (const Binding& b : bindings_) result.emplace_back(b.name);
  return result;
}

Diagnostic& Sema::error(SourceRange range, std::string message) {
  return diags_.error(DiagLocation::at(range), std::move(message));
}

Diagnostic& Sema::warning(SourceRange range, std::string message) {
  return diags_.warning(DiagLocation::at(range), std::move(message));
}

void Sema::note(Diagnostic& diag, SourceRange range, std::string message) {
  DiagnosticEngine::add_note(diag, DiagLocation::at(range), std::move(message));
}

bool Sema::stopped() const {
  if (!diags_.too_many_errors()) return false;
  long stored = std::count_if(diags_.diagnostics().begin(), diags_.diagnostics().end(),
                              [](const Diagnostic& d) { return d.severity == Severity::kError; });
  return diags_.error_count() > stored;
}

std::string Sema::location(SourceRange range) const {
  return sources_.name(range.file) + ":" +
         std::to_string(sources_.line_col(range.file, range.begin).line);
}

/// A rule in no phase runs in the implicit "default" phase, after every declared phase: also
/// after the phases of a file given after the rule's own, which its place on the command line
/// does not suggest (`--rules a.rules --rules b.rules` runs b's phases before a's loose rules).
void Sema::warn_default_after_later_phases(const std::vector<RuleFile*>& files,
                                           const std::vector<size_t>& unphased,
                                           const std::vector<PhaseDecl*>& phases) {
  if (unphased.empty() || phases.empty()) return;
  std::map<FileId, size_t> position;
  for (size_t i = 0; i < files.size(); ++i) position[files[i]->range.file] = i;
  const PhaseDecl* last = phases.back();
  for (size_t r : unphased) {
    const RuleDecl* rule = out_->rules_[r].decl;
    if (position[rule->range.file] >= position[last->range.file]) continue;
    Diagnostic& d = warning(rule->name->range,
                            "rule '" + out_->rules_[r].name +
                                "' is in no phase: it runs in the implicit 'default' phase, after "
                                "phase '" + std::string(last->name->text) +
                                "' of a file given after this one");
    note(d, last->name->range, "put the rule in a phase to run it where its file stands");
  }
}

bool Sema::run(const std::vector<RuleFile*>& files, RuleFileSet& out) {
  out_ = &out;
  int errors_before = diags_.error_count();
  std::vector<RuleDecl*> rules;
  std::vector<PhaseDecl*> phases;
  std::vector<TestDecl*> tests;
  std::vector<OpClassDecl*> opclasses;
  std::map<std::string, const TestDecl*, std::less<>> test_names;
  for (RuleFile* file : files) {
    for (Decl* decl : file->decls) {
      if (auto* r = dyn_cast<RuleDecl>(decl)) {
        if (declare(*this, rules_, r->name, static_cast<const RuleDecl*>(r), "rule"))
          rules.push_back(r);
      } else if (auto* p = dyn_cast<PhaseDecl>(decl)) {
        if (declare(*this, phases_, p->name, static_cast<const PhaseDecl*>(p), "phase"))
          phases.push_back(p);
      } else if (auto* t = dyn_cast<TestDecl>(decl)) {
        if (declare(*this, test_names, t->name, static_cast<const TestDecl*>(t), "test"))
          tests.push_back(t);
      } else if (auto* o = dyn_cast<OpClassDecl>(decl)) {
        if (declare(*this, opclasses_, o->name, static_cast<const OpClassDecl*>(o), "opclass"))
          opclasses.push_back(o);
      }
    }
  }
  // `apply` names rules and phases alike, so they share one namespace.
  for (const PhaseDecl* p : phases) {
    if (auto it = rules_.find(p->name->text); it != rules_.end()) {
      Diagnostic& d = error(p->name->range,
                            "phase '" + std::string(p->name->text) + "' has the name of a rule");
      note(d, it->second->name->range, "the rule is defined here");
    }
  }

  for (const OpClassDecl* o : opclasses) {
    std::string name(o->name->text);
    if (registry_.find(name) != nullptr) {
      error(o->name->range, "opclass '" + name + "' has the name of an op");
      continue;
    }
    if (!registry_.op_class(name).empty()) {
      error(o->name->range, "opclass '" + name + "' has the name of a built-in op class");
      continue;
    }
    std::vector<const OpSchema*>& members = opclass_ops_[name];
    for (const Ident* op : o->ops) {
      if (const OpSchema* s = registry_.find(op->text)) {
        members.push_back(s);
      } else {
        error(op->range,
              "unknown op '" + std::string(op->text) + "'" + registry_.suggest(op->text));
      }
    }
  }

  for (RuleDecl* r : rules) {
    if (stopped()) return false;
    CheckedRule checked;
    checked.decl = r;
    checked.name = std::string(r->name->text);
    checked.location = location(r->range);
    check_rule(r, checked);
    rule_index_.emplace(checked.name, out.rules_.size());
    out.rules_.push_back(std::move(checked));
  }

  std::vector<bool> phased(out.rules_.size(), false);
  for (const PhaseDecl* p : phases) {
    CheckedPhase phase{std::string(p->name->text), p->mode, 1, {}, p};
    if (p->mode == PhaseMode::kFixpoint) {
      phase.max_iterations = kDefaultFixpointMax;
      if (p->max != nullptr) {
        if (!p->max->is_int || p->max->int_value < 1 || p->max->int_value > 1000000) {
          error(p->max->range, "the iteration limit must be an integer from 1 to 1000000, got '" +
                                   std::string(p->max->spelling) + "'");
        } else {
          phase.max_iterations = static_cast<int>(p->max->int_value);
        }
      }
    }
    for (const Ident* id : p->rules) {
      auto it = rule_index_.find(id->text);
      if (it == rule_index_.end()) {
        std::vector<std::string> names;
        for (const auto& [name, index] : rule_index_) names.push_back(name);
        error(id->range, "unknown rule '" + std::string(id->text) + "' in phase '" + phase.name +
                             "'" + did_you_mean(id->text, names));
        continue;
      }
      if (std::find(phase.rules.begin(), phase.rules.end(), it->second) != phase.rules.end()) {
        warning(id->range, "rule '" + std::string(id->text) + "' is listed twice in phase '" +
                               phase.name + "'");
        continue;
      }
      phase.rules.push_back(it->second);
      phased[it->second] = true;
    }
    out.phases_.push_back(std::move(phase));
  }
  CheckedPhase rest{"default", PhaseMode::kFixpoint, kDefaultFixpointMax, {}, nullptr};
  for (size_t i = 0; i < phased.size(); ++i) {
    if (!phased[i]) rest.rules.push_back(i);
  }
  warn_default_after_later_phases(files, rest.rules, phases);
  if (!rest.rules.empty()) out.phases_.push_back(std::move(rest));

  for (TestDecl* t : tests) {
    if (stopped()) return false;
    CheckedTest checked;
    checked.decl = t;
    checked.name = std::string(t->name->text);
    check_test(t, checked);
    out.tests_.push_back(std::move(checked));
  }
  return diags_.error_count() == errors_before;
}

}  // namespace detail

std::optional<RuleFileSet> check_rule_files(std::unique_ptr<ast::Context> context,
                                            const std::vector<ast::RuleFile*>& files,
                                            const SourceManager& sources, DiagnosticEngine& diags) {
  std::vector<const ast::RuleFile*> const_files(files.begin(), files.end());
  std::vector<std::string> names;
  for (const ast::RuleFile* f : files) names.push_back(sources.name(f->range.file));
  ast::Context& ctx = *context;
  RuleFileSet set(std::move(context), std::move(const_files), std::move(names));
  detail::Sema sema(sources, diags, ctx);
  if (!sema.run(files, set)) return std::nullopt;
  return set;
}

}  // namespace graft::dsl
