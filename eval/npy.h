// NumPy .npy / .npz files for `rewrite run`: reading model inputs, writing outputs. Only what
// graft's tensors need: little-endian float32 (float64 is read and narrowed), int64 ('<i8')
// and bool ('|b1'), C order.
// Reading validates the magic, version, header dict, dtype, order and size, and reports each
// problem located in the file; writing is atomic (engine/support/atomic_file.h).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/support/diagnostics.h"
#include "eval/tensor.h"

namespace graft::eval {

/// Parses the bytes of a .npy file; `display_name` names it in diagnostics. Returns nullopt
/// after reporting a bad magic, an unsupported version, dtype or order, a malformed header,
/// or a data size that does not match the shape.
[[nodiscard]] std::optional<Tensor> parse_npy(const std::string& bytes,
                                              const std::string& display_name,
                                              DiagnosticEngine& diags);
/// Reads and parses `path`.
[[nodiscard]] std::optional<Tensor> read_npy(const std::string& path, DiagnosticEngine& diags);

/// The .npy (version 1.0) bytes of a float32, int64 or bool tensor.
std::string npy_bytes(const Tensor& tensor);
/// The .npz bytes (an uncompressed zip of "<name>.npy" entries, as numpy.savez writes).
/// Returns nullopt and sets `error` if the archive would need zip64 (over 4 GB).
std::optional<std::string> npz_bytes(const std::vector<std::pair<std::string, Tensor>>& arrays,
                                     std::string* error);

/// Writes `tensor` to `path` atomically; false after reporting.
[[nodiscard]] bool write_npy(const std::string& path, const Tensor& tensor, DiagnosticEngine& diags);
/// Writes the arrays to `path` as .npz atomically; false after reporting.
[[nodiscard]] bool write_npz(const std::string& path,
                             const std::vector<std::pair<std::string, Tensor>>& arrays,
                             DiagnosticEngine& diags);

}  // namespace graft::eval
