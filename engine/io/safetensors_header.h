// The safetensors header, parsed as it streams by (nlohmann's SAX interface): each tensor entry
// is checked when it ends and goes straight into the tensor table, so reading a header takes a
// few bytes of memory per header byte; a document tree of the whole header (nlohmann::json)
// would take over ten. Internal to the safetensors reader (engine/io/safetensors.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/io/safetensors.h"
#include "engine/support/diagnostics.h"

namespace graft::detail {

/// The longest header read, as in the reference implementation (MAX_HEADER_SIZE, 100 MB).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;
/// The most dims a tensor may have, as in numpy 2: a header of one shape with millions of
/// dims would otherwise take 8 bytes per 2-byte dim, twice (the shape and its interned type).
inline constexpr size_t kMaxSafetensorsRank = 64;

/// Parses and checks `text`, the JSON header of `file`, whose data section of `data_size`
/// bytes starts at `data` and is kept alive by `owner`: every problem is reported at its JSON
/// pointer ("/conv.weight/data_offsets"), then the result is nullopt. The tensors point into
/// the data section, inside it and without overlapping.
std::optional<SafetensorsFile> parse_safetensors_header(std::string_view text,
                                                        const std::byte* data, uint64_t data_size,
                                                        const std::shared_ptr<const void>& owner,
                                                        const std::string& file,
                                                        DiagnosticEngine& diags);

}  // namespace graft::detail
