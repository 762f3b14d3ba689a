// Element types, with the names used by model.json ("float32") and safetensors ("F32").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace graft {

enum class DType { kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8, kBool };

/// "float32", "int64", … (torch's names without the "torch." prefix).
const char* dtype_name(DType dtype);
/// "f32", "i64", "bf16", … (the short form rules and test graphs write).
const char* dtype_alias(DType dtype);
/// "F32", "I64", … (the safetensors header names).
const char* dtype_safetensors_name(DType dtype);
size_t dtype_size(DType dtype);
std::optional<DType> parse_dtype(std::string_view name);
std::optional<DType> parse_safetensors_dtype(std::string_view name);
bool is_floating(DType dtype);
/// Every model.json dtype name, for "did you mean" suggestions.
std::string all_dtype_names();
/// Every safetensors dtype name ("F64, F32, …"), for messages.
std::string all_safetensors_dtype_names();

}  // namespace graft
