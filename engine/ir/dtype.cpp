// The dtype name tables.
#include "engine/ir/dtype.h"

#include <array>

namespace graft {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  const char* alias;  // short form accepted in rules and tests ("f32")
  const char* safetensors;
  size_t size;
};

constexpr std::array<DTypeInfo, 10> kDTypes = {{
    {DType::kFloat32, "float32", "f32", "F32", 4},
    {DType::kFloat64, "float64", "f64", "F64", 8},
    {DType::kFloat16, "float16", "f16", "F16", 2},
    {DType::kBFloat16, "bfloat16", "bf16", "BF16", 2},
    {DType::kInt64, "int64", "i64", "I64", 8},
    {DType::kInt32, "int32", "i32", "I32", 4},
    {DType::kInt16, "int16", "i16", "I16", 2},
    {DType::kInt8, "int8", "i8", "I8", 1},
    {DType::kUInt8, "uint8", "u8", "U8", 1},
    {DType::kBool, "bool", "bool", "BOOL", 1},
}};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<size_t>(dtype)]; }

}  // namespace

const char* dtype_name(DType dtype) { return info(dtype).name; }
const char* dtype_alias(DType dtype) { return info(dtype).alias; }
const char* dtype_safetensors_name(DType dtype) { return info(dtype).safetensors; }
size_t dtype_size(DType dtype) { return info(dtype).size; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& d : kDTypes) {
    if (name == d.name || name == d.alias) return d.dtype;
  }
  return std::nullopt;
}

std::optional<DType> parse_safetensors_dtype(std::string_view name) {
  for (const DTypeInfo& d : kDTypes) {
    if (name == d.safetensors) return d.dtype;
  }
  return std::nullopt;
}

bool is_floating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

std::string all_dtype_names() {
  std::string out;
  for (const DTypeInfo& d : kDTypes) {
    if (!out.empty()) out += ", ";
    out += d.name;
  }
  return out;
}

std::string all_safetensors_dtype_names() {
  std::string out;
  for (const DTypeInfo& d : kDTypes) {
    if (!out.empty()) out += ", ";
    out += d.safetensors;
  }
  return out;
}

}  // namespace graft
