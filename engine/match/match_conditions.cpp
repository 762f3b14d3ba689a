// `where` conditions: each side of a comparison evaluates to a Datum (a number, dim, dtype,
// string, list, set, …); dim symbols of the rule bind on first use and compare afterwards, so
// `shape(x) == [N, C, _, _], dim(w, 1) == C` ties the two together.
#include "engine/match/match_conditions.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/match/value_condition.h"

namespace graft {
namespace {

struct Datum {
  enum class Kind { kNone, kNumber, kDim, kString, kBool, kDType, kList, kSet, kRange, kWildcard,
                    kEllipsis, kSymbol };
  Kind kind = Kind::kNone;
  double number = 0;
  bool is_int = false;
  double tolerance = 0;
  Dim dim = 0;
  std::string string;
  bool flag = false;
  DType dtype = DType::kFloat32;
  uint32_t symbol = 0;
  std::vector<Datum> items;
};

std::string datum_text(const Datum& d) {
  switch (d.kind) {
    case Datum::Kind::kNone: return "none";
    case Datum::Kind::kNumber: {
      if (d.is_int) return std::to_string(static_cast<int64_t>(d.number));
      std::string s = std::to_string(d.number);
      return s;
    }
    case Datum::Kind::kDim: return dim_to_string(d.dim);
    case Datum::Kind::kString: return "\"" + d.string + "\"";
    case Datum::Kind::kBool: return d.flag ? "true" : "false";
    case Datum::Kind::kDType: return dtype_name(d.dtype);
    case Datum::Kind::kWildcard: return "_";
    case Datum::Kind::kEllipsis: return "...";
    case Datum::Kind::kSymbol: return "symbol";
    case Datum::Kind::kList:
    case Datum::Kind::kSet:
    case Datum::Kind::kRange: {
      const char* open = d.kind == Datum::Kind::kList ? "[" : d.kind == Datum::Kind::kSet ? "{" : "";
      const char* close = d.kind == Datum::Kind::kList ? "]" : d.kind == Datum::Kind::kSet ? "}" : "";
      const char* sep = d.kind == Datum::Kind::kRange ? ".." : ", ";
      std::string s = open;
      for (size_t i = 0; i < d.items.size(); ++i) s += (i ? sep : "") + datum_text(d.items[i]);
      return s + close;
    }
  }
  return "?";
}

class Evaluator {
 public:
  /// `explain`: build the messages saying why a condition fails. Matching calls this for
  /// every candidate and almost all fail, so without it no message is built.
  Evaluator(const Graph& graph, const Rule& rule, const std::vector<Node*>& nodes,
            const std::vector<Input>& vars, const std::vector<AttrValue>& attr_vars, bool explain)
      : graph_(graph),
        nodes_(nodes),
        vars_(vars),
        attr_vars_(attr_vars),
        symbols_(rule.symbol_count),
        explain_(explain) {}

  /// The dim symbol `s` is bound to, if a condition bound it.
  std::optional<Dim> symbol(uint32_t s) const { return symbols_[s]; }

  /// nullopt when the condition holds; otherwise why not.
  std::optional<std::string> check(const Condition& c) {
    std::string detail;
    bool holds = evaluate(c, &detail);
    if (holds != c.negated) return std::nullopt;
    if (!explain_) return std::string();
    std::string text = "where " + c.text + (c.loc.empty() ? "" : " (" + c.loc + ")");
    return text + (detail.empty() ? " does not hold" : ": " + detail);
  }

 private:
  const Input& value_of(const ValueRef& ref, Input* scratch) const {
    if (ref.kind == ValueRef::Kind::kVar) return vars_[ref.index];
    *scratch = Input::of(nodes_[ref.index]);
    return *scratch;
  }

  /// The constant get_attr `node` reads, or nullptr (with why, when explaining).
  const ConstantTensor* constant_of(const Node& node, std::string* detail) const {
    const ConstantTensor* t = node.is(NodeKind::kGetAttr) ? graph_.constant(node) : nullptr;
    if (t == nullptr && explain_) *detail = "'" + node.name() + "' is not a constant";
    return t;
  }

  static Datum number_datum(double x) {
    Datum d;
    d.kind = Datum::Kind::kNumber;
    d.number = x;
    d.is_int = std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15;
    return d;
  }

  bool evaluate(const Condition& c, std::string* detail) {
    switch (c.kind) {
      case Condition::Kind::kConst:
        for (const ValueRef& ref : c.values) {
          Input scratch;
          const Input& v = value_of(ref, &scratch);
          if (v.is_node() && !v.node->is(NodeKind::kGetAttr)) {
            if (explain_) *detail = "'" + v.node->name() + "' is not a constant";
            return false;
          }
        }
        return true;
      case Condition::Kind::kParameter:
      case Condition::Kind::kBuffer:
        for (const ValueRef& ref : c.values) {
          Input scratch;
          const Input& v = value_of(ref, &scratch);
          if (!v.is_node()) continue;  // an absent optional counts, as for const
          bool buffer = c.kind == Condition::Kind::kBuffer;
          const ConstantTensor* t = constant_of(*v.node, detail);
          if (t == nullptr) return false;
          if (t->buffer != buffer) {
            if (explain_) {
              *detail = "'" + v.node->name() + "' (constant '" + v.node->target() + "') is " +
                        (t->buffer ? "a buffer" : "a parameter");
            }
            return false;
          }
        }
        return true;
      case Condition::Kind::kValue: {
        Input scratch;
        const Input& v = value_of(c.values[0], &scratch);
        if (!v.is_node()) return true;  // an absent optional counts, as for const
        const ConstantTensor* t = constant_of(*v.node, detail);
        if (t == nullptr) return false;
        std::optional<ElementCounterexample> bad = first_failing_element(*t, c.op, c.rhs);
        if (bad && explain_) {
          *detail = "element " + std::to_string(bad->index) + " of '" + v.node->name() + "' is " +
                    datum_text(number_datum(bad->value));
        }
        return !bad.has_value();
      }
      case Condition::Kind::kOutput: {
        Input scratch;
        const Input& v = value_of(c.values[0], &scratch);
        if (!v.is_node()) return false;
        for (const Node* u : v.node->users()) {
          if (u->is(NodeKind::kOutput)) return true;
        }
        if (explain_) *detail = "'" + v.node->name() + "' is not a graph output";
        return false;
      }
      case Condition::Kind::kCompare: {
        // Counts and sizes (`uses(y) == 1`, `dim(w, 0) == 64`, `rank(x) >= 3`) are compared as
        // numbers: matching evaluates them for every candidate, and a Datum per side cost
        // more than the rest of the match. Anything else, and every failure (for its
        // message), takes the general path.
        if (!explain_ && c.op != CmpOp::kIn) {
          std::optional<Number> lhs = number_of(c.lhs), rhs = lhs ? number_of(c.rhs) : std::nullopt;
          if (lhs && rhs) {
            if (std::optional<bool> result = compare_numbers(*lhs, c.op, *rhs)) return *result;
          }
        }
        std::optional<Datum> lhs = eval(c.lhs, detail);
        std::optional<Datum> rhs = lhs ? eval(c.rhs, detail) : std::nullopt;
        if (!lhs || !rhs) return false;
        bool result = compare(*lhs, c.op, *rhs);
        if (!result || c.negated) {
          if (explain_) *detail = datum_text(*lhs) + " vs " + datum_text(*rhs);
        }
        return result;
      }
    }
    return false;
  }

  /// A side of a comparison that is a number: a literal, a use count, a rank, or a concrete dim.
  struct Number {
    double value = 0;
    double tolerance = 0;
    bool is_int = true;
    bool is_dim = false;
  };

  std::optional<Number> number_of(const Term& t) const {
    switch (t.kind) {
      case Term::Kind::kNumber:
        return Number{t.number, t.tolerance, t.is_int, false};
      case Term::Kind::kUses: {
        Input scratch;
        const Input& v = value_of(t.value, &scratch);
        return Number{v.is_node() ? static_cast<double>(v.node->num_distinct_users()) : 0.0};
      }
      case Term::Kind::kRank:
      case Term::Kind::kDim: {
        Input scratch;
        const Input& v = value_of(t.value, &scratch);
        if (!v.is_node() || !v.node->type()) return std::nullopt;
        const TensorType& type = *v.node->type();
        if (t.kind == Term::Kind::kRank) return Number{static_cast<double>(type.rank())};
        int64_t i = t.dim < 0 ? t.dim + type.rank() : t.dim;
        if (i < 0 || i >= type.rank()) return std::nullopt;
        Dim d = type.shape[static_cast<size_t>(i)];
        if (!is_concrete(d)) return std::nullopt;
        return Number{static_cast<double>(d), 0, true, true};
      }
      default:
        return std::nullopt;
    }
  }

  /// What compare() answers for these two sides, or nullopt where only it can tell (a dim
  /// against a fractional number: equal() compares those as kinds, not values).
  static std::optional<bool> compare_numbers(const Number& a, CmpOp op, const Number& b) {
    if (op == CmpOp::kEq || op == CmpOp::kNe) {
      bool eq;
      if (a.is_dim || b.is_dim) {
        if (!a.is_int || !b.is_int) return std::nullopt;
        eq = a.value == b.value;
      } else {
        eq = a.value == b.value ||
             std::fabs(a.value - b.value) <= std::max(a.tolerance, b.tolerance);
      }
      return op == CmpOp::kEq ? eq : !eq;
    }
    if (op == CmpOp::kLt) return a.value < b.value;
    if (op == CmpOp::kLe) return a.value <= b.value;
    if (op == CmpOp::kGt) return a.value > b.value;
    if (op == CmpOp::kGe) return a.value >= b.value;
    return std::nullopt;
  }

  std::optional<Datum> eval(const Term& t, std::string* detail) {
    Datum d;
    auto typed = [&](const ValueRef& ref) -> const TensorType* {
      Input scratch;
      const Input& v = value_of(ref, &scratch);
      if (!v.is_node() || !v.node->type()) {
        if (explain_) *detail = v.is_node() ? "'" + v.node->name() + "' has no known type" : "the value is none";
        return nullptr;
      }
      return &*v.node->type();
    };
    switch (t.kind) {
      case Term::Kind::kNumber:
        d.kind = Datum::Kind::kNumber;
        d.number = t.number;
        d.is_int = t.is_int;
        d.tolerance = t.tolerance;
        return d;
      case Term::Kind::kString:
        d.kind = Datum::Kind::kString;
        d.string = t.string;
        return d;
      case Term::Kind::kBool:
        d.kind = Datum::Kind::kBool;
        d.flag = t.flag;
        return d;
      case Term::Kind::kDType:
        d.kind = Datum::Kind::kDType;
        d.dtype = t.dtype;
        return d;
      case Term::Kind::kNone:
        return d;
      case Term::Kind::kSymbol:
        d.kind = Datum::Kind::kSymbol;
        d.symbol = t.var;
        return d;
      case Term::Kind::kWildcard:
        d.kind = Datum::Kind::kWildcard;
        return d;
      case Term::Kind::kEllipsis:
        d.kind = Datum::Kind::kEllipsis;
        return d;
      case Term::Kind::kAttrVar:
        return from_attr(attr_vars_[t.var]);
      case Term::Kind::kUses: {
        Input scratch;
        const Input& v = value_of(t.value, &scratch);
        d.kind = Datum::Kind::kNumber;
        d.is_int = true;
        d.number = v.is_node() ? static_cast<double>(v.node->num_distinct_users()) : 0;
        return d;
      }
      case Term::Kind::kRank: {
        const TensorType* type = typed(t.value);
        if (type == nullptr) return std::nullopt;
        d.kind = Datum::Kind::kNumber;
        d.is_int = true;
        d.number = static_cast<double>(type->rank());
        return d;
      }
      case Term::Kind::kDim: {
        const TensorType* type = typed(t.value);
        if (type == nullptr) return std::nullopt;
        int64_t i = t.dim < 0 ? t.dim + type->rank() : t.dim;
        if (i < 0 || i >= type->rank()) {
          if (explain_) *detail = "dim " + std::to_string(t.dim) + " is out of range for " + type_to_string(*type);
          return std::nullopt;
        }
        d.kind = Datum::Kind::kDim;
        d.dim = type->shape[static_cast<size_t>(i)];
        return d;
      }
      case Term::Kind::kDTypeOf: {
        const TensorType* type = typed(t.value);
        if (type == nullptr) return std::nullopt;
        d.kind = Datum::Kind::kDType;
        d.dtype = type->dtype;
        return d;
      }
      case Term::Kind::kNameOf: {
        // A constant is named by its target (the state_dict name), not by its node.
        Input scratch;
        const Input& v = value_of(t.value, &scratch);
        if (!v.is_node()) return std::nullopt;
        d.kind = Datum::Kind::kString;
        d.string = v.node->is(NodeKind::kGetAttr) ? v.node->target() : v.node->name();
        return d;
      }
      case Term::Kind::kShapeOf: {
        const TensorType* type = typed(t.value);
        if (type == nullptr) return std::nullopt;
        d.kind = Datum::Kind::kList;
        for (Dim dim : type->shape) {
          Datum item;
          item.kind = Datum::Kind::kDim;
          item.dim = dim;
          d.items.push_back(item);
        }
        return d;
      }
      case Term::Kind::kList:
      case Term::Kind::kSet:
      case Term::Kind::kRange:
        d.kind = t.kind == Term::Kind::kList  ? Datum::Kind::kList
                 : t.kind == Term::Kind::kSet ? Datum::Kind::kSet
                                              : Datum::Kind::kRange;
        for (const Term& item : t.items) {
          std::optional<Datum> e = eval(item, detail);
          if (!e) return std::nullopt;
          d.items.push_back(std::move(*e));
        }
        return d;
    }
    return std::nullopt;
  }

  static Datum from_attr(const AttrValue& v) {
    Datum d;
    if (const auto* i = std::get_if<int64_t>(&v)) {
      d.kind = Datum::Kind::kNumber;
      d.number = static_cast<double>(*i);
      d.is_int = true;
    } else if (const auto* f = std::get_if<double>(&v)) {
      d.kind = Datum::Kind::kNumber;
      d.number = *f;
    } else if (const auto* b = std::get_if<bool>(&v)) {
      d.kind = Datum::Kind::kBool;
      d.flag = *b;
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      d.kind = Datum::Kind::kString;
      d.string = *s;
    } else if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) {
      d.kind = Datum::Kind::kList;
      for (int64_t x : *l) d.items.push_back(from_attr(AttrValue{x}));
    } else if (const auto* fl = std::get_if<std::vector<double>>(&v)) {
      d.kind = Datum::Kind::kList;
      for (double x : *fl) d.items.push_back(from_attr(AttrValue{x}));
    }
    return d;
  }

  /// A number for ordering and ranges: a number, or a concrete dim.
  static std::optional<double> numeric(const Datum& d) {
    if (d.kind == Datum::Kind::kNumber) return d.number;
    if (d.kind == Datum::Kind::kDim && is_concrete(d.dim)) return static_cast<double>(d.dim);
    if (d.kind == Datum::Kind::kBool) return d.flag ? 1.0 : 0.0;
    return std::nullopt;
  }

  bool compare(const Datum& a, CmpOp op, const Datum& b) {
    switch (op) {
      case CmpOp::kEq: return equal(a, b);
      case CmpOp::kNe: return !equal(a, b);
      case CmpOp::kIn:
        if (b.kind == Datum::Kind::kRange && b.items.size() == 2) {
          auto x = numeric(resolve(a)), lo = numeric(b.items[0]), hi = numeric(b.items[1]);
          return x && lo && hi && *lo <= *x && *x <= *hi;
        }
        for (const Datum& item : b.items) {
          if (equal(a, item)) return true;
        }
        return false;
      default: {
        auto x = numeric(resolve(a)), y = numeric(resolve(b));
        if (!x || !y) return false;
        if (op == CmpOp::kLt) return *x < *y;
        if (op == CmpOp::kLe) return *x <= *y;
        if (op == CmpOp::kGt) return *x > *y;
        return *x >= *y;
      }
    }
  }

  /// A bound symbol as its dim; anything else unchanged.
  Datum resolve(const Datum& d) const {
    if (d.kind != Datum::Kind::kSymbol || !symbols_[d.symbol]) return d;
    Datum r;
    r.kind = Datum::Kind::kDim;
    r.dim = *symbols_[d.symbol];
    return r;
  }

  static std::optional<Dim> as_dim(const Datum& d) {
    if (d.kind == Datum::Kind::kDim) return d.dim;
    if (d.kind == Datum::Kind::kNumber && d.is_int) return static_cast<Dim>(d.number);
    return std::nullopt;
  }

  bool equal(const Datum& x, const Datum& y) {
    if (x.kind == Datum::Kind::kWildcard || y.kind == Datum::Kind::kWildcard) return true;
    if (x.kind == Datum::Kind::kSymbol || y.kind == Datum::Kind::kSymbol) {
      const Datum& sym = x.kind == Datum::Kind::kSymbol ? x : y;
      const Datum& other = x.kind == Datum::Kind::kSymbol ? y : x;
      if (symbols_[sym.symbol]) return equal(resolve(sym), other);
      std::optional<Dim> dim = as_dim(resolve(other));
      if (!dim) return false;
      symbols_[sym.symbol] = *dim;
      return true;
    }
    if (x.kind == Datum::Kind::kList && y.kind == Datum::Kind::kList) return lists_equal(x.items, y.items);
    auto dx = as_dim(x), dy = as_dim(y);
    if (dx && dy && (x.kind == Datum::Kind::kDim || y.kind == Datum::Kind::kDim)) return *dx == *dy;
    auto nx = numeric(x), ny = numeric(y);
    if (x.kind == Datum::Kind::kNumber && y.kind == Datum::Kind::kNumber && nx && ny) {
      double tol = std::max(x.tolerance, y.tolerance);
      return *nx == *ny || std::fabs(*nx - *ny) <= tol;
    }
    if (x.kind != y.kind) return false;
    switch (x.kind) {
      case Datum::Kind::kNone: return true;
      case Datum::Kind::kString: return x.string == y.string;
      case Datum::Kind::kBool: return x.flag == y.flag;
      case Datum::Kind::kDType: return x.dtype == y.dtype;
      default: return false;
    }
  }

  /// Lists where either side may hold one `...` standing for any number of items.
  bool lists_equal(const std::vector<Datum>& a, const std::vector<Datum>& b) {
    auto ellipsis = [](const std::vector<Datum>& v) -> std::optional<size_t> {
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].kind == Datum::Kind::kEllipsis) return i;
      }
      return std::nullopt;
    };
    std::optional<size_t> ea = ellipsis(a), eb = ellipsis(b);
    if (ea && eb) return false;  // sema keeps `...` to one side
    if (eb) return lists_equal(b, a);
    if (!ea) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!equal(a[i], b[i])) return false;
      }
      return true;
    }
    size_t head = *ea, tail = a.size() - *ea - 1;
    if (b.size() < head + tail) return false;
    for (size_t i = 0; i < head; ++i) {
      if (!equal(a[i], b[i])) return false;
    }
    for (size_t i = 0; i < tail; ++i) {
      if (!equal(a[a.size() - 1 - i], b[b.size() - 1 - i])) return false;
    }
    return true;
  }

  const Graph& graph_;
  const std::vector<Node*>& nodes_;
  const std::vector<Input>& vars_;
  const std::vector<AttrValue>& attr_vars_;
  std::vector<std::optional<Dim>> symbols_;
  bool explain_;
};

}  // namespace

bool conditions_hold(const Graph& graph, const Rule& rule, const std::vector<Node*>& nodes,
                     const std::vector<Input>& vars, const std::vector<AttrValue>& attr_vars,
                     std::string* reason, std::vector<Dim>* symbols) {
  Evaluator eval(graph, rule, nodes, vars, attr_vars, reason != nullptr);
  for (const Condition& c : rule.conditions) {
    if (std::optional<std::string> why = eval.check(c)) {
      if (reason != nullptr) *reason = *why;
      return false;
    }
  }
  for (uint32_t s : rule.replacement_symbols) {
    std::optional<Dim> dim = eval.symbol(s);
    if (!dim || !is_concrete(*dim)) {
      if (reason != nullptr) {
        *reason = "the replacement needs a concrete size for a dim symbol, which is " +
                  (dim ? "the symbolic dim " + dim_to_string(*dim) : std::string("unbound"));
      }
      return false;
    }
  }
  if (symbols != nullptr) {
    symbols->resize(rule.symbol_count);
    for (uint32_t s = 0; s < rule.symbol_count; ++s) {
      (*symbols)[s] = eval.symbol(s).value_or(unknown_dim());
    }
  }
  return true;
}

}  // namespace graft
