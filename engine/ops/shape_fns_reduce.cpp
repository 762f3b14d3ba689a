// Shape functions of the reductions mean, sum, amax and amin: `dim` lists the reduced dims (None or
// [] means all of them, as in torch 1.13), `keepdim` keeps them as size 1.
#include <set>

#include "engine/ops/shape_fns.h"

namespace graft::shape_fns {
namespace {

/// The result shape, after checking the dims; `reduced` receives the normalized dims.
Result reduce(const InferInputs& in, std::set<int64_t>* reduced, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const AttrValue& dim_attr = in.attr("dim");
  const auto* dims = std::get_if<std::vector<int64_t>>(&dim_attr);
  if (dims == nullptr || dims->empty()) {
    for (int64_t i = 0; i < x->rank(); ++i) reduced->insert(i);
  } else {
    for (int64_t dim : *dims) {
      std::optional<int64_t> d = wrap_dim(dim, x->rank(), error);
      if (!d) return std::nullopt;
      if (!reduced->insert(*d).second) {
        *error = "dim " + std::to_string(*d) + " appears more than once in " +
                 ints_to_string(*dims);
        return std::nullopt;
      }
    }
  }
  bool keepdim = in.bool_attr("keepdim");
  Shape out;
  for (int64_t i = 0; i < x->rank(); ++i) {
    if (reduced->count(i) == 0) {
      out.push_back(x->shape[static_cast<size_t>(i)]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return TensorType{x->dtype, out};
}

}  // namespace

Result mean(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  std::set<int64_t> reduced;
  return reduce(in, &reduced, error);
}

Result sum(const InferInputs& in, std::string* error) {
  std::set<int64_t> reduced;
  Result out = reduce(in, &reduced, error);
  // torch sums integers and bools in int64 so that they do not overflow.
  if (out && !is_floating(out->dtype)) out->dtype = DType::kInt64;
  return out;
}

namespace {

/// amax and amin: an extreme over nothing is undefined, so every reduced dim must be non-empty.
Result extreme(const InferInputs& in, const char* what, std::string* error) {
  std::set<int64_t> reduced;
  Result out = reduce(in, &reduced, error);
  if (!out) return std::nullopt;
  const TensorType& x = *in.type(0);
  for (int64_t d : reduced) {
    if (x.rank() > 0 && x.shape[static_cast<size_t>(d)] == 0) {
      *error = std::string("cannot take the ") + what + " over dim " + std::to_string(d) +
               " of size 0 (input " + shape_to_string(x.shape) + ")";
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

Result amax(const InferInputs& in, std::string* error) { return extreme(in, "maximum", error); }

Result amin(const InferInputs& in, std::string* error) { return extreme(in, "minimum", error); }

}  // namespace graft::shape_fns
