// Byte counts for messages: "1.5 GiB", "512 B".
#pragma once

#include <string>

namespace graft {

/// "1.5 GiB", "512 B": binary units, one decimal above bytes.
std::string format_bytes(double bytes);

}  // namespace graft
