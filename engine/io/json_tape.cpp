#include "engine/io/json_tape.h"

#include <algorithm>

namespace graft {

const char* JsonRef::type_name() const {
  switch (type()) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBool:
      return "boolean";
    case JsonType::kInt:
    case JsonType::kUnsigned:
    case JsonType::kFloat:
      return "number";
    case JsonType::kString:
      return "string";
    case JsonType::kArray:
      return "array";
    case JsonType::kObject:
      return "object";
  }
  return "null";
}

size_t JsonRef::size() const {
  switch (type()) {
    case JsonType::kNull:
      return 0;
    case JsonType::kArray:
    case JsonType::kObject:
      return e().count;
    default:
      return 1;
  }
}

int64_t JsonRef::int64() const {
  switch (type()) {
    case JsonType::kInt:
      return e().i;
    case JsonType::kUnsigned:
      return static_cast<int64_t>(e().u);
    case JsonType::kFloat:
      return static_cast<int64_t>(e().d);
    case JsonType::kBool:
      return e().flag ? 1 : 0;
    default:
      return 0;
  }
}

double JsonRef::number() const {
  switch (type()) {
    case JsonType::kInt:
      return static_cast<double>(e().i);
    case JsonType::kUnsigned:
      return static_cast<double>(e().u);
    case JsonType::kFloat:
      return e().d;
    case JsonType::kBool:
      return e().flag ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

std::optional<JsonRef> JsonRef::find(std::string_view key) const {
  if (!is_object()) return std::nullopt;
  for (Iterator it = begin(), last = end(); !(it == last); ++it) {
    if (same_key(it.key(), key)) return it.value();
  }
  return std::nullopt;
}

JsonRef JsonRef::at(size_t i) const {
  Iterator it = begin();
  for (; i > 0; --i) ++it;
  return *it;
}

std::vector<std::pair<std::string_view, JsonRef>> JsonRef::sorted_members() const {
  std::vector<std::pair<std::string_view, JsonRef>> members;
  members.reserve(size());
  for (Iterator it = begin(), last = end(); !(it == last); ++it) {
    members.emplace_back(it.key(), it.value());
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return members;
}

nlohmann::json JsonRef::to_json() const {
  switch (type()) {
    case JsonType::kNull:
      return nullptr;
    case JsonType::kBool:
      return boolean();
    case JsonType::kInt:
      return e().i;
    case JsonType::kUnsigned:
      return e().u;
    case JsonType::kFloat:
      return e().d;
    case JsonType::kString:
      return std::string(str());
    case JsonType::kArray: {
      nlohmann::json array = nlohmann::json::array();
      for (JsonRef element : *this) array.push_back(element.to_json());
      return array;
    }
    case JsonType::kObject: {
      nlohmann::json object = nlohmann::json::object();
      for (Iterator it = begin(), last = end(); !(it == last); ++it) {
        object[std::string(it.key())] = it.value().to_json();
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace graft
