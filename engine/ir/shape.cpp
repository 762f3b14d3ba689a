// Symbolic dim interning and shape printing.
#include "engine/ir/shape.h"

#include <mutex>
#include <unordered_map>

namespace graft {
namespace {

struct SymbolTable {
  std::mutex mutex;
  std::vector<std::string> names{"?"};
  std::unordered_map<std::string, int64_t> ids{{"?", 0}};
};

SymbolTable& symbols() {
  static SymbolTable* table = new SymbolTable();  // never destroyed: used from static dtors
  return *table;
}

}  // namespace

Dim dim_symbol(std::string_view name) {
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto [it, inserted] = t.ids.try_emplace(std::string(name), static_cast<int64_t>(t.names.size()));
  if (inserted) t.names.emplace_back(name);
  return -1 - it->second;
}

Dim unknown_dim() { return -1; }

bool is_concrete(const Shape& shape) {
  for (Dim d : shape) {
    if (d < 0) return false;
  }
  return true;
}

std::string dim_to_string(Dim d) {
  if (d >= 0) return std::to_string(d);
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mutex);
  size_t id = static_cast<size_t>(-1 - d);
  return id < t.names.size() ? t.names[id] : "?";
}

std::string shape_to_string(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += dim_to_string(shape[i]);
  }
  return out + "]";
}

std::optional<int64_t> element_count(const Shape& shape) {
  // One pass (the folder asks for every operand of every folded op): a symbolic dim makes the
  // count unknown, then a zero makes it 0 whatever the rest ([2^62, 2^62, 0] is empty, not an
  // overflow), and only then does an overflow matter.
  int64_t count = 1;
  bool zero = false, overflow = false;
  for (Dim d : shape) {
    if (d < 0) return std::nullopt;
    zero |= d == 0;
    overflow |= __builtin_mul_overflow(count, d, &count);
  }
  if (zero) return 0;
  if (overflow) return std::nullopt;
  return count;
}

std::vector<int64_t> broadcast_strides(const Shape& shape, size_t rank) {
  std::vector<int64_t> out(rank, 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1) out[rank - shape.size() + i] = stride;
    stride *= shape[i];
  }
  return out;
}

bool within_size_limit(const TensorType& type) {
  int64_t bytes = static_cast<int64_t>(dtype_size(type.dtype));
  for (Dim d : type.shape) {
    if (d == 0) return true;
  }
  for (Dim d : type.shape) {
    if (d <= 0) continue;  // a symbol
    if (bytes > kMaxTensorBytes / d) return false;
    bytes *= d;
  }
  return true;
}

std::string size_limit_message(const TensorType& type) {
  std::string text = type_to_string(type) + " would take more than 256 TiB, the limit for one tensor";
  // Symbols count as 1, as in within_size_limit.
  int64_t count = 1;
  bool zero = false, overflow = false;
  for (Dim d : type.shape) {
    zero |= d == 0;
    overflow |= d > 0 && __builtin_mul_overflow(count, d, &count);
  }
  if (overflow && !zero) text += " (its element count overflows int64)";
  return text;
}

std::string type_to_string(const TensorType& type) {
  return std::string(dtype_name(type.dtype)) + shape_to_string(type.shape);
}

}  // namespace graft
