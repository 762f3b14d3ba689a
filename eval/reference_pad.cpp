// Reference kernel of pad: each output element read from the input element that
// engine/ops/pad_geometry.h maps it to, or set to the fill value (constant mode). Any dtype;
// the fill value is converted as torch's fill converts it (int64 truncates toward zero, bool
// is value != 0), so it needs float32, int64 or bool unless it is 0.
#include <cstring>

#include "engine/ops/pad_geometry.h"
#include "eval/element_cast.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
bool pad(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto pad = call.ints_attr("pad");
  auto mode_name = call.str_attr("mode");
  auto value = call.float_attr("value", 0);
  if (!x || !pad || !mode_name || !value) return false;
  std::optional<PadMode> mode = parse_pad_mode(*mode_name);
  if (!mode) return call.fail("unknown padding mode '" + *mode_name + "'");
  auto fill = fill_element(out.dtype(), *value);
  if (!fill) return call.fail("pad fills float32, int64 and bool only");
  const Shape& in_shape = x->shape();
  const size_t rank = in_shape.size();
  if (pad->size() % 2 != 0 || pad->size() / 2 > rank) return call.fail("bad pad list");
  auto pads = pads_per_dim(*pad, rank);
  const std::vector<int64_t> in_strides = strides_of(in_shape);
  const size_t element = dtype_size(out.dtype());
  const auto* src = static_cast<const std::byte*>(x->data());
  auto* dst = static_cast<std::byte*>(out.data());
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank && offset >= 0; ++d) {
      int64_t s = pad_source_index(*mode, index[d], in_shape[d], pads[d].first, pads[d].second);
      offset = s < 0 ? -1 : offset + s * in_strides[d];
    }
    const std::byte* from = offset < 0 ? fill->data() : src + offset * element;
    std::memcpy(dst + i * element, from, element);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out.shape()[d]) break;
      index[d] = 0;
    }
  }
  return true;
}

}  // namespace graft::eval::ref
