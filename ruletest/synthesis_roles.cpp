// Synth's types and attribute values (synthesis.h): the shape of an operand a rule leaves
// open, from its role in the op's registry row (OpSchema::roles: a conv weight is
// (O, C/groups, 3, 3) for the input's C), and the candidate values of an attribute, by the
// attribute's name (stride 1 or 2, eps 1e-5 or 1e-3, …).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "engine/match/attr_check.h"
#include "ruletest/synthesis.h"

namespace graft::ruletest::synthesis {

namespace {

/// The dims of shape choice `choice` (Synth::shape_choice_), and the output features of a
/// linear or matmul weight and the output channels of a convolution weight.
struct ShapeChoice {
  Shape base;
  int64_t out_features;
  int64_t conv_out;
};

const ShapeChoice& shape_choice(int choice) {
  static const ShapeChoice kChoices[] = {{{2, 4, 6, 6, 5}, 6, 6},
                                         {{3, 8, 5, 7, 4}, 5, 6},
                                         {{1, 1, 1, 1, 1}, 1, 1},
                                         {{1, 2, 2, 2, 2}, 2, 2},
                                         {{1, 2, 3, 3, 3}, 2, 2}};
  return kChoices[std::clamp(choice, 0, static_cast<int>(std::size(kChoices)) - 1)];
}

}  // namespace

Shape Synth::default_shape(int rank, const std::string& name) const {
  const Shape& base = shape_choice(shape_choice_).base;
  rank = std::clamp(rank, 0, static_cast<int>(base.size()));
  Shape shape(base.begin(), base.begin() + rank);
  apply_dim_hints(name, shape);
  return shape;
}

void Synth::apply_dim_hints(const std::string& name, Shape& shape) const {
  auto it = dim_hint_.find(name);
  if (it == dim_hint_.end()) return;
  const auto rank = static_cast<int>(shape.size());
  for (auto [dim, size] : it->second) {
    const int at = dim < 0 ? dim + rank : dim;
    if (at >= 0 && at < rank) shape[static_cast<size_t>(at)] = size;
  }
}

int Synth::rank_of(const std::string& name, int fallback) const {
  if (rank_override_ >= 0) return rank_override_;
  auto it = rank_hint_.find(name);
  return it == rank_hint_.end() ? fallback : it->second;
}

/// The type of the pending operand `index` of `schema`, from its role; `vals` holds the
/// operands known so far and `attrs` the attribute values (empty before they are chosen).
namespace {

using enum OperandRole;

/// The rank a role gives an operand that takes no shape from another (0: none).
int input_rank(OperandRole role) {
  switch (role) {
    case kImage: return 4;
    case kSequence: return 3;
    case kMatrix:
    case kMatmulInput: return 2;
    default: return 0;
  }
}

/// True for the roles whose shape comes from the op's input (operand 0).
bool from_input(OperandRole role) {
  return role == kConvWeight || role == kLinearWeight || role == kMatmulOther ||
         role == kOutChannels || role == kChannel || role == kPositiveChannel ||
         role == kNormalized || role == kConvTransposeWeight || role == kTransposedOutChannels;
}

TensorType tensor(Shape shape) { return TensorType{DType::kFloat32, std::move(shape)}; }

/// A convolution's spatial dims: one per item of its stride (conv1d 1, conv2d 2, conv3d 3).
int spatial_dims(const OpSchema& s) {
  const int stride = s.attr_index("stride");
  return stride >= 0 ? std::max(1, s.attrs[static_cast<size_t>(stride)].fixed_length) : 2;
}

/// A value of `spec` other than its default, for the attributes that have no entry of their
/// own in candidates(): the other bool, the next int, a float halved and moved off zero.
std::optional<AttrValue> other_than_default(const AttrSpec& spec) {
  const AttrValue& d = spec.default_value;
  if (const auto* b = std::get_if<bool>(&d)) return AttrValue{!*b};
  if (const auto* i = std::get_if<int64_t>(&d)) {
    if (spec.type == AttrType::kFloat || spec.type == AttrType::kScalar) {
      return AttrValue{static_cast<double>(*i) * 0.5 + 0.25};
    }
    return AttrValue{*i + 1};
  }
  if (const auto* f = std::get_if<double>(&d)) return AttrValue{*f * 0.5 + 0.25 == *f ? *f + 1 : *f * 0.5 + 0.25};
  return std::nullopt;
}

/// Candidate values of attribute `spec` bound to a variable, for input type `x`: by the
/// attribute's name, which means the same in every op that has it (stride, eps, dims).
std::vector<AttrValue> candidates(const AttrSpec& spec, const TensorType* x) {
  const std::string& a = spec.name;
  int64_t rank = x != nullptr ? x->rank() : 4;
  // One value per spatial dim: conv1d's stride has one item, conv3d's three.
  const auto items = static_cast<size_t>(spec.fixed_length > 0 ? spec.fixed_length : 2);
  auto pair = [items](int64_t v) { return AttrValue{std::vector<int64_t>(items, v)}; };
  if (a == "stride") return {pair(1), pair(2)};
  if (a == "padding") return {pair(0), pair(1)};
  if (a == "dilation") return {pair(1), pair(2)};
  if (a == "kernel_size") return {pair(2), pair(3)};
  if (a == "output_size") return {pair(1), pair(2)};
  if (a == "groups") {
    int64_t c = x != nullptr && x->rank() >= 2 ? x->shape[1] : 4;
    if (c % 2 == 0 && c > 2) return {AttrValue{int64_t{1}}, AttrValue{c}, AttrValue{int64_t{2}}};
    return {AttrValue{int64_t{1}}, AttrValue{c}};
  }
  if (a == "eps") return {AttrValue{1e-5}, AttrValue{1e-3}};
  // Training too: a rule whose training-mode instances cannot run is not verified there.
  if (a == "training") return {AttrValue{false}, AttrValue{true}};
  if (a == "p") return {AttrValue{0.5}, AttrValue{0.0}};
  if (a == "negative_slope") return {AttrValue{0.01}, AttrValue{0.2}};
  if (a == "min_val") return {AttrValue{-1.0}, AttrValue{0.0}};
  if (a == "max_val") return {AttrValue{1.0}, AttrValue{6.0}};
  if (a == "approximate") return {AttrValue{std::string("none")}, AttrValue{std::string("tanh")}};
  if (a == "normalized_shape" && x != nullptr && rank >= 1) {
    return {AttrValue{std::vector<int64_t>{x->shape.back()}}};
  }
  if (a == "dims") {  // permute's
    std::vector<int64_t> rotate(rank), reverse(rank);
    for (int64_t i = 0; i < rank; ++i) {
      rotate[i] = (i + 1) % rank;
      reverse[i] = rank - 1 - i;
    }
    return {AttrValue{rotate}, AttrValue{reverse}};
  }
  if (a == "shape" && x != nullptr && rank >= 1) {
    // Another shape of the same elements: the dims rotated, or the first dim and the rest.
    Shape rotated(x->shape.begin() + 1, x->shape.end());
    rotated.push_back(x->shape[0]);
    return {AttrValue{rotated}, AttrValue{x->shape},
            AttrValue{std::vector<int64_t>{x->shape[0], -1}}};
  }
  if (a == "dim0") return {AttrValue{int64_t{0}}, AttrValue{int64_t{1}}};
  if (a == "dim1") return {AttrValue{rank - 1}, AttrValue{int64_t{rank > 2 ? rank - 2 : 0}}};
  if (a == "dim" && spec.type == AttrType::kInts) {
    return {AttrValue{std::vector<int64_t>{-1}}, AttrValue{std::vector<int64_t>{1}}};
  }
  if (a == "dim") return {AttrValue{int64_t{-1}}, AttrValue{int64_t{1}}};
  if (a == "start_dim") return {AttrValue{int64_t{1}}};
  if (a == "end_dim") return {AttrValue{int64_t{-1}}};
  if (spec.has_default && !is_none(spec.default_value)) {
    // The default and one other value: a rule that leaves the attribute free must be right
    // for any value, so one that drops elu's alpha or add's alpha fails.
    if (std::optional<AttrValue> other = other_than_default(spec)) return {spec.default_value, *other};
    return {spec.default_value};
  }
  // No default, or None: two values where a type has two obvious ones, so that a rule that
  // drops an optional attribute (interpolate's align_corners) or mixes up two (clamp's min
  // and max, one of -0.5 and 0.5 each) fails.
  switch (spec.type) {
    case AttrType::kBool: return {AttrValue{false}, AttrValue{true}};
    case AttrType::kInt: return {AttrValue{int64_t{1}}};
    case AttrType::kFloat:
    case AttrType::kScalar: return {AttrValue{0.5}, AttrValue{-0.5}};
    case AttrType::kString: return {AttrValue{std::string("none")}};
    case AttrType::kInts:
      return {AttrValue{std::vector<int64_t>(std::max(spec.fixed_length, 1), 1)}};
    case AttrType::kFloats: return {AttrValue{std::vector<double>{0.5}}};
  }
  return {AttrValue{}};
}

}  // namespace

std::optional<TensorType> Synth::role_type(const OpSchema& s, size_t index,
                                           const std::string& name,
                                           const std::vector<std::optional<SynthValue>>& vals,
                                           const std::vector<AttrValue>& attrs, bool* positive) {
  const OperandRole role = index < s.roles.size() ? s.roles[index] : kElement;
  auto known = [&](size_t k) -> const TensorType* {
    return k < vals.size() && vals[k] && vals[k]->kind == SynthValue::Kind::kTensor
               ? &vals[k]->type
               : nullptr;
  };
  const TensorType* x = known(0);
  *positive = role == kPositive || role == kPositiveChannel;
  if (role == kLikeResult) return infer(s, vals, attrs);
  if (role == kConvInput) {  // (N, C, *spatial): as many spatial dims as the stride has items
    return tensor(default_shape(rank_of(name, 2 + spatial_dims(s)), name));
  }
  if (const TensorType* key = known(1); role == kScores && x && key && x->rank() >= 2 &&
                                        key->rank() >= 2) {
    Shape scores = x->shape;  // (…, L, E) -> (…, L, S)
    scores.back() = key->shape[key->rank() - 2];
    return tensor(scores);
  }
  if (int rank = input_rank(role); rank > 0) {
    // linear, matmul and the sequence ops take leading batch dims: some variants give one.
    if (role != kImage && extra_batch_dim_) ++rank;
    Shape shape = default_shape(rank_of(name, rank), name);
    const TensorType* other = known(1);
    if (role == kMatmulInput && other && other->rank() >= 2 && !shape.empty()) {
      shape.back() = other->shape[other->rank() - 2];
    }
    return tensor(shape);
  }
  if (from_input(role)) {
    if (x == nullptr || x->rank() < 1) {
      const std::string operand = index < s.operands.size() ? s.operands[index].name : "tensors";
      fail(fmt::format("{}'s {} needs a tensor input to take its shape from", s.name, operand));
      return std::nullopt;
    }
    return input_role_type(s, role, name, x, known(1), attrs);
  }
  if (s.in_class("binary") || s.has_variadic() || index > 0) {
    // Elementwise: the shape of a known tensor operand (its trailing dims for a lower rank).
    for (size_t k = 0; k < vals.size(); ++k) {
      const TensorType* other = known(k);
      if (other == nullptr) continue;
      int rank = rank_of(name, static_cast<int>(other->rank()));
      if (rank > other->rank()) break;
      return tensor(Shape(other->shape.end() - rank, other->shape.end()));
    }
  }
  return tensor(default_shape(rank_of(name, s.in_class("shape") ? 3 : generic_rank_), name));
}

std::optional<TensorType> Synth::input_role_type(const OpSchema& s, OperandRole role,
                                                 const std::string& name, const TensorType* x,
                                                 const TensorType* w,
                                                 const std::vector<AttrValue>& attrs) {
  auto attr = [&](const char* a) -> const AttrValue* {
    int i = s.attr_index(a);
    return i >= 0 && static_cast<size_t>(i) < attrs.size() ? &attrs[i] : nullptr;
  };
  const int64_t out_features = shape_choice(shape_choice_).out_features;
  const int64_t conv_out = shape_choice(shape_choice_).conv_out;
  switch (role) {
    case kConvWeight:
    case kConvTransposeWeight: {
      // (N, C, *spatial) with one spatial dim per stride item (conv1d: 1, conv2d: 2, …).
      const int64_t spatial = spatial_dims(s);
      if (x->rank() != 2 + spatial) return tensor(default_shape(static_cast<int>(2 + spatial), name));
      const AttrValue* g = attr("groups");
      int64_t channels = x->shape[1];
      int64_t groups =
          g != nullptr && std::holds_alternative<int64_t>(*g) ? std::get<int64_t>(*g) : 1;
      if (groups < 1 || channels % groups != 0) {
        fail(fmt::format("groups={} does not divide the {} input channels", groups, channels));
        return std::nullopt;
      }
      int64_t out = groups > 1 && groups == channels ? channels
                                                     : groups * ((conv_out + groups - 1) / groups);
      // (O, C/groups, 3, …) or, transposed, (C, O/groups, 3, …): one 3 per spatial dim.
      Shape weight = role == kConvWeight ? Shape{out, channels / groups} : Shape{channels, out / groups};
      weight.resize(static_cast<size_t>(2 + spatial), 3);
      return tensor(weight);
    }
    case kLinearWeight: return tensor({out_features, x->shape.back()});
    case kOutChannels: return tensor({w != nullptr ? w->shape[0] : out_features});
    case kTransposedOutChannels: {
      const AttrValue* g = attr("groups");
      int64_t groups = g != nullptr && std::holds_alternative<int64_t>(*g) ? std::get<int64_t>(*g) : 1;
      return tensor({w != nullptr && w->rank() >= 2 ? w->shape[1] * groups : out_features});
    }
    case kMatmulOther: {
      int64_t k = x->shape.back();
      return rank_of(name, 2) == 1 ? tensor({k}) : tensor({k, out_features});
    }
    case kChannel:
    case kPositiveChannel: return tensor({x->rank() >= 2 ? x->shape[1] : x->shape[0]});
    case kNormalized: {
      const AttrValue* normalized = attr("normalized_shape");
      if (normalized != nullptr && std::holds_alternative<std::vector<int64_t>>(*normalized)) {
        return tensor(std::get<std::vector<int64_t>>(*normalized));
      }
      return tensor({x->shape.back()});
    }
    default: return tensor(default_shape(4, name));
  }
}


/// The value of attribute `index` of `s` as the pattern states it (`emit` is set when the
/// graph must spell it out), or its default when the pattern does not mention it.
std::optional<AttrValue> Synth::list_with_vars(const ast::ListExpr& list, const AttrSpec& spec,
                                               const TensorType* x) {
  // An item takes the values the attribute's candidates have at that place: stride's [1, 1]
  // and [2, 2] give an item 1 or 2.
  const bool ints = spec.type == AttrType::kInts;
  const std::vector<AttrValue> listed = candidates(spec, x);
  std::vector<AttrValue> items;
  for (const AttrValue& c : listed) {
    for (size_t i = 0; attr_list_size(c) && i < *attr_list_size(c); ++i) {
      AttrValue item = *attr_list_item(c, i);
      if (!ints) item = AttrValue{*numeric(item)};
      if (std::none_of(items.begin(), items.end(), [&](const AttrValue& o) { return attr_equal(o, item); })) {
        items.push_back(item);
      }
    }
  }
  if (items.empty()) items.push_back(ints ? AttrValue{int64_t{1}} : AttrValue{0.5});
  // A list that is a whole (reshape's shape, permute's dims) takes its items from one
  // candidate of its length, or the sizes would not multiply out; stride's items vary apart.
  std::vector<AttrValue> fitting;
  const AttrValue* whole = nullptr;
  if (spec.name == "shape" || spec.name == "sizes" || spec.name == "dims") {
    for (const AttrValue& c : listed) {
      if (attr_list_size(c) == list.items.size()) fitting.push_back(c);
    }
    if (!fitting.empty()) whole = &fitting[static_cast<size_t>(choose(static_cast<int>(fitting.size())))];
  }
  std::vector<int64_t> int_list;
  std::vector<double> float_list;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const ast::Expr* e = list.items[i];
    std::vector<AttrValue> pool;
    if (whole == nullptr) {
      pool = items;
    } else if (ints) {
      pool.push_back(*attr_list_item(*whole, i));
    } else {
      pool.emplace_back(*numeric(*attr_list_item(*whole, i)));
    }
    std::optional<AttrValue> item;
    if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(e)) {
      item = choose_var(std::string(var->name), pool);
    } else if (e->kind == ast::NodeKind::kWildcard) {
      item = pool[static_cast<size_t>(choose(static_cast<int>(pool.size())))];
    } else {
      item = literal_value(e);
    }
    std::optional<double> number = item ? numeric(*item) : std::nullopt;
    if (!number) return std::nullopt;
    int_list.push_back(static_cast<int64_t>(*number));
    float_list.push_back(*number);
  }
  return ints ? AttrValue{int_list} : AttrValue{float_list};
}

std::optional<AttrValue> Synth::choose_attr(const OpSchema& s, size_t index, const ast::Arg* arg,
                                     const TensorType* x, bool* emit) {
  const AttrSpec& spec = s.attrs[index];
  AttrValue def = spec.has_default ? spec.default_value : AttrValue{};
  *emit = false;
  if (arg == nullptr || arg->value->kind == ast::NodeKind::kWildcard) {
    // Not checked by the rule, so the rule must be right for any value: the default, or
    // (in later variants) one of the usual values.
    std::vector<AttrValue> options;
    if (spec.has_default && (spec.nullable || !is_none(def))) options.push_back(def);
    for (const AttrValue& v : candidates(spec, x)) {
      bool seen = std::any_of(options.begin(), options.end(),
                              [&](const AttrValue& o) { return attr_equal(o, v); });
      if (!seen && !is_none(v)) options.push_back(v);
    }
    AttrValue chosen = options[choose(static_cast<int>(options.size()))];
    std::string err;
    std::optional<AttrValue> coerced = coerce_attr(spec, chosen, &err);
    if (!coerced) return def;
    *emit = !spec.has_default || !attr_equal(*coerced, def);
    return coerced;
  }
  std::optional<AttrValue> value;
  if (arg->is_in) {
    if (const auto* set = ast::dyn_cast<ast::SetExpr>(arg->value)) {
      value = literal_value(set->items[choose(static_cast<int>(set->items.size()))]);
    } else if (const auto* range = ast::dyn_cast<ast::RangeExpr>(arg->value)) {
      value = literal_value(choose(2) == 0 ? range->lo : range->hi);
    }
  } else if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(arg->value)) {
    value = choose_var(std::string(var->name), candidates(spec, x));
    if (!value) return std::nullopt;
  } else if (ast::is_list_with_vars(arg->value) &&
             (spec.type == AttrType::kInts || spec.type == AttrType::kFloats)) {
    value = list_with_vars(*static_cast<const ast::ListExpr*>(arg->value), spec, x);
    if (!value) return std::nullopt;
  } else if (const auto* tol = ast::dyn_cast<ast::ToleranceExpr>(arg->value);
             tol != nullptr && (spec.type == AttrType::kFloat || spec.type == AttrType::kScalar)) {
    const double shifted = within_tolerance(*tol);
    value.emplace(shifted);
  } else {
    value = literal_value(arg->value);
  }
  if (!value) {
    fail(fmt::format("{}'s {} has a form the synthesiser cannot instantiate", s.name, spec.name));
    return std::nullopt;
  }
  std::string err;
  std::optional<AttrValue> coerced = coerce_attr(spec, *value, &err);
  if (!coerced) {
    fail(fmt::format("{}'s {}: {}", s.name, spec.name, err));
    return std::nullopt;
  }
  *emit = true;
  return coerced;
}
}  // namespace graft::ruletest::synthesis
