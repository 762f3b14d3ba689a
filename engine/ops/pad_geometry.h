// torch's padding geometry (F.pad, constant_pad_nd, reflection_pad*, replication_pad*,
// _pad_circular), shared by pad's shape function, its reference kernel and its runtime kernel
// so that all three agree on which input element each output element reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graft {

enum class PadMode : uint8_t { kConstant, kReflect, kReplicate, kCircular };

/// 'constant', 'reflect', 'replicate' or 'circular'; nullopt for another name.
std::optional<PadMode> parse_pad_mode(std::string_view mode);

/// The (left, right) pads of each of a rank-`rank` input's dims for torch's `pad` list, which
/// holds pairs from the last dim backwards; dims it does not reach get (0, 0). The caller has
/// checked that pad.size() is even and at most 2 * rank.
std::vector<std::pair<int64_t, int64_t>> pads_per_dim(const std::vector<int64_t>& pad, size_t rank);

/// The size of a dim of `size` padded by (left, right) in `mode`, or nullopt after setting
/// `error` where torch refuses it: a crop of more than the dim, a negative size, a reflect pad
/// not below the size, an empty dim or result in reflect and replicate, a circular pad that
/// wraps around more than once. `dim` only names the dim in the message.
std::optional<int64_t> padded_size(PadMode mode, int64_t size, int64_t left, int64_t right,
                                   size_t dim, std::string* error);

/// The index along a dim of `size` padded by (left, right) that output index `o` reads, or -1
/// for the fill value of constant mode. The pads are ones padded_size accepts.
inline int64_t pad_source_index(PadMode mode, int64_t o, int64_t size, int64_t left,
                                int64_t right) {
  int64_t x = o - left;
  switch (mode) {
    case PadMode::kConstant:
      return x >= 0 && x < size ? x : -1;
    case PadMode::kReflect:
      return x < 0 ? -x : x >= size ? 2 * (size - 1) - x : x;
    case PadMode::kReplicate:
      return x < 0 ? 0 : x >= size ? size - 1 : x;
    case PadMode::kCircular: {
      // torch crops first, then wraps around what is left.
      int64_t crop_l = left < 0 ? -left : 0, crop_r = right < 0 ? -right : 0;
      int64_t kept = size - crop_l - crop_r;
      int64_t y = (o - (left > 0 ? left : 0)) % kept;
      return (y < 0 ? y + kept : y) + crop_l;
    }
  }
  return -1;
}

}  // namespace graft
