// The piecewise JSON reader (engine/io/json_reader.h) against the parser it stands in for: on
// every input below it must accept exactly what find_excess_nesting + parse_strict_json accept
// and give the same values, number types included (the loader's messages and attribute values
// depend on them). The inputs are the corners of nlohmann's lexer: numbers at the edges of
// int64, uint64 and double, escapes and surrogates, UTF-8 edge cases, a byte order mark,
// whitespace, nesting at the limit and keys given twice.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/io/json_limits.h"
#include "engine/io/json_reader.h"
#include "engine/io/strict_json.h"

using namespace graft;

namespace {

struct Read {
  bool ok = false;
  nlohmann::json value;
};

Read read_whole(std::string_view text) {
  JsonReader reader(text);
  JsonTape tape(text);
  Read out;
  out.ok = reader.begin_document() && reader.read_value(tape, 0) && reader.end_document();
  if (out.ok) out.value = tape.root().to_json();
  return out;
}

Read parse_reference(std::string_view text) {
  Read out;
  if (find_excess_nesting(text) != std::string_view::npos) return out;
  JsonError error;
  std::optional<nlohmann::json> parsed = parse_strict_json(text, &error);
  out.ok = parsed.has_value();
  if (parsed) out.value = std::move(*parsed);
  return out;
}

/// Equal values of equal types all the way down (nlohmann's == calls 1 and 1.0 equal).
bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!same(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !same(it.value(), b[it.key()])) return false;
    }
    return true;
  }
  if (a.is_number_float()) return a.dump() == b.dump();  // -0.0 == 0.0, but not in the text
  return a == b;
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

/// An object of keys k1, k2, … k`n - 1` and then `last` (a key given twice, or not).
std::string many_keys(int n, const std::string& last) {
  std::string text = "{";
  for (int i = 1; i < n; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  return text + "\"" + last + "\":0}";
}

const std::vector<std::string> kCases = {
    // numbers
    "0", "-0", "1", "-1", "1.5", "-1.5e3", "1E+2", "1e-2", "0.0", "-0.0", "1e400", "-1e400",
    "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "123456789012345678901234567890", "0.1", "2.2250738585072011e-308", "4.9e-324",
    "1.7976931348623157e308", "1.7976931348623159e308", "01", "-", "1.", ".5", "1e", "1e+",
    "+1", "0x10", "1.0e", "--1", "-01", "NaN", "Infinity",
    // literals
    "true", "false", "null", "tru", "nul", "nulll", "True", "[true,false,null]",
    // strings
    R"("")", R"("abc")", R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u0041\u00e9\u20ac")",
    R"("\ud83d\ude00")", R"("\ud83d")", R"("\ude00")", R"("\ud83d\u0041")", R"("\ud83dx")",
    R"("\u00")", R"("\u00g0")", R"("\x")", R"("\0")", R"("\u0000")", "\"a\tb\"", "\"a\nb\"",
    "\"\x7f\"", "\"\x1f\"", "\"abc", "\"\\", "\"\xc3\xa9\"", "\"\xc3\"", "\"\xc0\x80\"",
    "\"\xed\xa0\x80\"", "\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"",
    "\"\xe0\x80\xaf\"", "\"\xef\xbf\xbf\"", "\"\xf0\x90\x80\x80\"", "\"\x80\"",
    // byte order mark, whitespace, trailing text
    "\xef\xbb\xbf{}", "\xef\xbb{}", " \xef\xbb\xbf{}", " \t\r\n{ } \n", "\f{}", "{}\v", "", " ",
    "{} {}", "{},", "[1,]", "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{\"a\":1,}", "{,}",
    "{1:2}", "[", "]", "{", "}", "[1]]",
    // objects and keys given twice
    R"({"a":1,"b":[1,2,{"c":null}]})", R"({"a":1,"a":2})", R"({"a":1,"\u0061":2})",
    R"({"a":{"b":1},"b":{"b":2}})", R"({"a":{"b":1,"b":2}})", R"([{"a":1},{"a":1}])",
    R"({"":1,"":2})",
    // escaped keys (copied by the reader) and then nested objects, whose key sets must not
    // move the outer ones' copies; the outer key comes again, unescaped
    R"({"a\u0062":{"c":{"d":{"e":{"f":{"g":{}}}}}},"ab":1})",
    R"({"a long key past the small-string buffer\u0021":{"c":{"d":{"e":{}}}},)"
    R"("a long key past the small-string buffer!":1})",
    many_keys(19, "k1"), many_keys(19, "k19"),
    // NUL bytes
    std::string("{\"a\":1}\0", 8), std::string("{\"a\":\"x\0y\"}", 11), std::string("\0", 1),
    // nesting at the limit and one past it
    nested(kMaxJsonDepth), nested(kMaxJsonDepth + 1),
    "{\"a\":" + nested(kMaxJsonDepth - 1) + "}", "{\"a\":" + nested(kMaxJsonDepth) + "}",
};

}  // namespace

TEST_CASE("the JSON reader accepts what the strict parser accepts, with the same values",
          "[engine][json]") {
  for (const std::string& text : kCases) {
    CAPTURE(text);
    Read reference = parse_reference(text);
    Read reader = read_whole(text);
    CHECK(reader.ok == reference.ok);
    if (reader.ok && reference.ok) CHECK(same(reader.value, reference.value));
  }
}

TEST_CASE("the JSON reader gives nlohmann's number types", "[engine][json]") {
  auto type_of = [](std::string_view text) {
    JsonTape tape(text);
    JsonReader reader(text);
    REQUIRE(reader.read_value(tape, 0));
    return tape.root().type();
  };
  CHECK(type_of("7") == JsonType::kUnsigned);
  CHECK(type_of("-7") == JsonType::kInt);
  CHECK(type_of("-0") == JsonType::kInt);
  CHECK(type_of("7.0") == JsonType::kFloat);
  CHECK(type_of("18446744073709551616") == JsonType::kFloat);
  CHECK(type_of("-9223372036854775809") == JsonType::kFloat);
}

TEST_CASE("a JSON object is read member by member, its keys checked as they come",
          "[engine][json]") {
  std::string text = R"({"a": [1, 2], "b\u0021": "x", "a": 3})";
  JsonReader reader(text);
  REQUIRE(reader.begin_document());
  REQUIRE(reader.enter_object());
  std::string_view key;
  size_t quote = 0;
  JsonTape value(text);
  REQUIRE(reader.read_key(&key, &quote));
  CHECK(key == "a");
  CHECK(quote == 1);
  REQUIRE(reader.read_value(value, 1));
  CHECK(value.root().size() == 2);
  REQUIRE(reader.consume(','));
  REQUIRE(reader.read_key(&key, &quote));
  CHECK(key == "b!");  // decoded
  CHECK(quote == 14);
  REQUIRE(reader.read_value(value, 1));
  REQUIRE(reader.consume(','));
  CHECK_FALSE(reader.read_key(&key, &quote));  // "a" again
  CHECK(reader.error_reason() == "a key given twice");
}

TEST_CASE("a tape answers as nlohmann's value would", "[engine][json]") {
  std::string text = R"({"z": null, "a": [1, -2, 2.5, "s", true, {}], "m": {"k": "v\n"}})";
  JsonTape tape(text);
  JsonReader reader(text);
  REQUIRE(reader.read_value(tape, 0));
  JsonRef root = tape.root();
  nlohmann::json reference = nlohmann::json::parse(text);
  CHECK(root.size() == 3);
  CHECK(root.dump() == reference.dump());
  CHECK(root.find("z")->empty());
  CHECK(root.find("z")->type_name() == std::string("null"));
  CHECK_FALSE(root.find("missing"));
  JsonRef a = *root.find("a");
  CHECK(a.at(1).int64() == -2);
  CHECK(a.at(2).number() == 2.5);
  CHECK(a.at(3).str() == "s");
  CHECK(a.at(3).size() == 1);  // a scalar's size, as nlohmann counts it
  CHECK(a.at(5).empty());
  CHECK(root.find("m")->find("k")->str() == "v\n");
  std::vector<std::string_view> keys;
  for (const auto& [key, value] : root.sorted_members()) keys.push_back(key);
  CHECK(keys == std::vector<std::string_view>{"a", "m", "z"});
}
