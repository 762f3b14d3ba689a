// The canonical printer of the AST.
#include "dsl/printer.h"

#include "engine/support/check.h"

namespace graft::dsl {
namespace {

using namespace ast;

// Binding strength, loosest first; a child is parenthesised when it binds more loosely than
// its position requires.
enum Prec { kCoalescePrec = 1, kAddPrec = 2, kMulPrec = 3, kUnaryPrec = 4, kPrimaryPrec = 5 };

int precedence(const Expr& e) {
  if (const auto* b = dyn_cast<BinaryExpr>(&e)) {
    switch (b->op) {
      case BinaryOp::kCoalesce:
        return kCoalescePrec;
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
        return kAddPrec;
      case BinaryOp::kMul:
      case BinaryOp::kDiv:
        return kMulPrec;
    }
  }
  if (e.kind == NodeKind::kUnary) return kUnaryPrec;
  return kPrimaryPrec;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <typename T, typename Fn>
std::string join(std::span<T* const> items, const char* sep, Fn fn) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += fn(*items[i]);
  }
  return out;
}

std::string expr_text(const Expr& e);

std::string operand(const Expr& e, bool parens) {
  return parens ? "(" + expr_text(e) + ")" : expr_text(e);
}

std::string arg_text(const Arg& a) {
  std::string out;
  if (a.keyword != nullptr) out += std::string(a.keyword->text) + (a.is_in ? " in " : "=");
  return out + expr_text(*a.value);
}

std::string call_text(const CallExpr& c) {
  std::string out = c.ordered ? "ordered " : "";
  if (c.ops.size() == 1) {
    out += c.ops[0]->text;
  } else {
    out += "(" + join(c.ops, " | ", [](const Ident& i) { return std::string(i.text); }) + ")";
  }
  return out + "(" + join(c.args, ", ", arg_text) + ")";
}

std::string expr_text(const Expr& e) {
  switch (e.kind) {
    case NodeKind::kName:
      return std::string(static_cast<const NameExpr&>(e).name);
    case NodeKind::kAttrVar:
      return "$" + std::string(static_cast<const AttrVarExpr&>(e).name);
    case NodeKind::kWildcard:
      return "_";
    case NodeKind::kNone:
      return "none";
    case NodeKind::kNumber:
      return std::string(static_cast<const NumberExpr&>(e).spelling);
    case NodeKind::kString:
      return quote(static_cast<const StringExpr&>(e).value);
    case NodeKind::kBool:
      return static_cast<const BoolExpr&>(e).value ? "true" : "false";
    case NodeKind::kList:
      return "[" + join(static_cast<const ListExpr&>(e).items, ", ", expr_text) + "]";
    case NodeKind::kSet:
      return "{" + join(static_cast<const SetExpr&>(e).items, ", ", expr_text) + "}";
    case NodeKind::kRange: {
      const auto& r = static_cast<const RangeExpr&>(e);
      return std::string(r.lo->spelling) + ".." + std::string(r.hi->spelling);
    }
    case NodeKind::kEllipsis:
      return "...";
    case NodeKind::kTolerance: {
      const auto& t = static_cast<const ToleranceExpr&>(e);
      return std::string(t.value->spelling) + " ~ " + std::string(t.tolerance->spelling);
    }
    case NodeKind::kCall:
      return call_text(static_cast<const CallExpr&>(e));
    case NodeKind::kBinary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      int p = precedence(b);
      // Left-associative operators need parentheses on an equally strong right operand;
      // '??' is right-associative, so the other way round.
      bool right_assoc = b.op == BinaryOp::kCoalesce;
      int lp = precedence(*b.lhs);
      int rp = precedence(*b.rhs);
      return operand(*b.lhs, right_assoc ? lp <= p : lp < p) + " " + binary_op_spelling(b.op) +
             " " + operand(*b.rhs, right_assoc ? rp < p : rp <= p);
    }
    case NodeKind::kUnary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      return "-" + operand(*u.operand, precedence(*u.operand) < kUnaryPrec);
    }
    default:
      break;
  }
  GRAFT_UNREACHABLE() << "not an expression: " << node_kind_name(e.kind);
  return {};
}

std::string type_text(const TypeSpec& t) {
  return std::string(t.dtype->text) + "[" + join(t.dims, ", ", expr_text) + "]";
}

std::string param_text(const Param& p) {
  std::string out(p.name->text);
  if (p.optional) out += "?";
  if (p.type != nullptr) out += ": " + type_text(*p.type);
  return out;
}

class Printer {
 public:
  std::string take() { return std::move(out_); }

  void decl(const Decl& d) {
    if (!d.doc.empty() || d.doc_range.is_valid()) {
      std::string_view doc = d.doc;
      while (true) {
        size_t nl = doc.find('\n');
        line("///" + std::string(doc.substr(0, nl)));
        if (nl == std::string_view::npos) break;
        doc.remove_prefix(nl + 1);
      }
    }
    switch (d.kind) {
      case NodeKind::kImport:
        line("import " + quote(static_cast<const ImportDecl&>(d).path->value));
        break;
      case NodeKind::kOpClass: {
        const auto& o = static_cast<const OpClassDecl&>(d);
        line("opclass " + std::string(o.name->text) + " = " +
             join(o.ops, " | ", [](const Ident& i) { return std::string(i.text); }));
        break;
      }
      case NodeKind::kRule:
        rule(static_cast<const RuleDecl&>(d));
        break;
      case NodeKind::kPhase:
        phase(static_cast<const PhaseDecl&>(d));
        break;
      case NodeKind::kTest:
        test(static_cast<const TestDecl&>(d));
        break;
      default:
        GRAFT_UNREACHABLE() << "not a declaration: " << node_kind_name(d.kind);
    }
  }

 private:
  void line(const std::string& text) {
    out_ += std::string(2 * static_cast<size_t>(indent_), ' ') + text + "\n";
  }

  /// `head {`, the block's statements, `}`.
  void block(const std::string& head, const Block& b) {
    line(head + " {");
    ++indent_;
    for (const Stmt* s : b.stmts) stmt(*s);
    line("return " + join(b.ret->values, ", ", expr_text));
    --indent_;
    line("}");
  }

  void stmt(const Stmt& s) {
    if (const auto* a = dyn_cast<AssignStmt>(&s)) {
      line(std::string(a->target->text) + " = " + expr_text(*a->value));
      return;
    }
    const auto& p = static_cast<const ParamDefStmt&>(s);
    std::string text = std::string(p.target->text) + " = param " + type_text(*p.type);
    if (p.positive) text += " positive";
    if (p.buffer) text += " buffer";
    if (p.init != nullptr) text += " = " + expr_text(*p.init);
    line(text);
  }

  void rule(const RuleDecl& r) {
    line("rule " + std::string(r.name->text) + " {");
    ++indent_;
    block("pattern(" + join(r.pattern->params, ", ", param_text) + ")", *r.pattern->body);
    for (const Node* c : r.clauses) {
      if (const auto* w = dyn_cast<WhereClause>(c)) {
        line("where " + join(w->conditions, ", ", print_condition));
      } else {
        line("benefit " + std::string(static_cast<const BenefitClause*>(c)->value->spelling));
      }
    }
    block("replacement", *r.replacement->body);
    --indent_;
    line("}");
  }

  void phase(const PhaseDecl& p) {
    std::string mode = p.mode == PhaseMode::kOnce ? "once" : "fixpoint";
    if (p.max != nullptr) mode += "(max=" + std::string(p.max->spelling) + ")";
    std::string rules = join(p.rules, ", ", [](const Ident& i) { return std::string(i.text); });
    line("phase " + std::string(p.name->text) + " " + mode +
         (rules.empty() ? " {}" : " { " + rules + " }"));
  }

  void graph(const std::string& prefix, const GraphBlock& g) {
    std::string head = prefix + "graph";
    if (g.has_inputs) head += "(" + join(g.inputs, ", ", param_text) + ")";
    block(head, *g.body);
  }

  void test(const TestDecl& t) {
    line("test " + std::string(t.name->text) + " {");
    ++indent_;
    graph("", *t.graph);
    for (const Node* c : t.clauses) {
      if (const auto* a = dyn_cast<ApplyClause>(c)) {
        line("apply " + join(a->names, ", ", [](const Ident& i) { return std::string(i.text); }));
        continue;
      }
      // Conditions share a line; a graph expectation starts its own `expect graph { … }`.
      std::string pending;
      for (const Node* item : static_cast<const ExpectClause*>(c)->items) {
        if (const auto* g = dyn_cast<GraphBlock>(item)) {
          graph(pending.empty() ? "expect " : "expect " + pending + ", ", *g);
          pending.clear();
        } else {
          pending +=
              (pending.empty() ? "" : ", ") + print_condition(*static_cast<const Condition*>(item));
        }
      }
      if (!pending.empty()) line("expect " + pending);
    }
    --indent_;
    line("}");
  }

  std::string out_;
  int indent_ = 0;
};

}  // namespace

std::string print_expr(const Expr& expr) { return expr_text(expr); }

std::string print_condition(const Condition& cond) {
  std::string out = cond.negated ? "not " : "";
  out += expr_text(*cond.lhs);
  if (cond.op != CmpOp::kNone)
    out += std::string(" ") + cmp_op_spelling(cond.op) + " " + expr_text(*cond.rhs);
  return out;
}

std::string print_decl(const Decl& decl) {
  Printer p;
  p.decl(decl);
  return p.take();
}

std::string print_file(const RuleFile& file) {
  std::string out;
  for (size_t i = 0; i < file.decls.size(); ++i) {
    if (i > 0) out += "\n";
    out += print_decl(*file.decls[i]);
  }
  return out;
}

}  // namespace graft::dsl
