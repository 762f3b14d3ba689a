// safetensors: round trips through the writer and reader, reading real (mapped) files, and one
// test per rejection path with its exact message and JSON pointer. Headers are written inline
// as JSON text so each test shows the bytes it feeds the reader.
#include "engine/io/safetensors.h"
#include "engine/io/safetensors_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

constexpr const char* kName = "w.safetensors";

/// An 8-byte little-endian length, `header` verbatim (no padding) and `data`.
std::string make_file(const std::string& header, const std::string& data = {}) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string bytes_of(const std::vector<float>& values) {
  std::string out(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// Reads float `i` with memcpy: safetensors data need not be aligned (see safetensors.cpp).
float float_at(const ConstantTensor& t, size_t i) {
  float value = 0;
  std::memcpy(&value, t.data + i * sizeof(float), sizeof(float));
  return value;
}

std::optional<SafetensorsFile> parse(const std::string& bytes, DiagnosticEngine& diags) {
  auto owner = std::make_shared<const std::string>(bytes);
  return parse_safetensors(reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner,
                           kName, diags);
}

/// Parses `bytes`, expecting it to be rejected with exactly one error; returns that error.
Diagnostic single_error(const std::string& bytes) {
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(bytes, diags);
  INFO(diags.render());
  CHECK_FALSE(file.has_value());
  REQUIRE(diags.error_count() == 1);
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.diagnostics()[0].loc.file == kName);
  return diags.diagnostics()[0];
}

/// A header with one tensor "w" whose entry is `entry`, followed by `data`.
std::string one_tensor(const std::string& entry, const std::string& data = std::string(24, '\0')) {
  return make_file(R"({"w":)" + entry + "}", data);
}

ConstantTensor owned_bytes(DType dtype, Shape shape, const std::string& bytes) {
  std::vector<std::byte> v(bytes.size());
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return ConstantTensor::owned(dtype, std::move(shape), std::move(v));
}

std::map<std::string, ConstantTensor> sample_tensors() {
  std::map<std::string, ConstantTensor> tensors;
  tensors["conv.weight"] = ConstantTensor::from_floats({2, 3}, {1, 2, 3, 4, 5, 6.5f});
  tensors["conv.bias"] = ConstantTensor::from_floats({2}, {-1, 0.25f});
  tensors["steps"] = owned_bytes(DType::kInt64, {1}, std::string("\x07\0\0\0\0\0\0\0", 8));
  tensors["mask"] = owned_bytes(DType::kBool, {3}, std::string("\x01\x00\x01", 3));
  tensors["half"] = owned_bytes(DType::kBFloat16, {}, std::string("\x80\x3f", 2));
  tensors["empty"] = owned_bytes(DType::kFloat32, {0, 4}, "");
  return tensors;
}

}  // namespace

// ** writing and reading back **

TEST_CASE("safetensors round trip keeps values, shapes, dtypes and metadata",
          "[engine][safetensors]") {
  std::map<std::string, ConstantTensor> tensors = sample_tensors();
  std::map<std::string, std::string> metadata = {{"format", "pt"}, {"graft", "0.1"}};
  std::string bytes = serialize_safetensors(tensors, metadata);

  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(bytes, diags);
  INFO(diags.render());
  REQUIRE(file.has_value());
  CHECK_FALSE(diags.has_errors());
  CHECK(file->metadata == metadata);
  REQUIRE(file->tensors.size() == tensors.size());
  for (const auto& [name, original] : tensors) {
    INFO(name);
    REQUIRE(file->tensors.count(name) == 1);
    const ConstantTensor& t = file->tensors.at(name);
    CHECK(t.dtype() == original.dtype());
    CHECK(t.shape() == original.shape());
    CHECK(&t.type() == &original.type());  // uniqued
    REQUIRE(t.nbytes == original.nbytes);
    // An empty owned tensor may have a null `data`, which memcmp must not see.
    if (t.nbytes > 0) CHECK(std::memcmp(t.data, original.data, t.nbytes) == 0);
    CHECK(t.owner != nullptr);
  }
  const ConstantTensor& w = file->tensors.at("conv.weight");
  CHECK(float_at(w, 0) == 1.0f);
  CHECK(float_at(w, 5) == 6.5f);
  CHECK(w.numel() == 6);

  // Byte-identical when written again: the writer is deterministic.
  CHECK(serialize_safetensors(file->tensors, file->metadata) == bytes);
}

TEST_CASE("safetensors writer sorts by name, pads the header with spaces and packs the data",
          "[engine][safetensors]") {
  std::map<std::string, ConstantTensor> tensors;
  tensors["b"] = ConstantTensor::from_floats({1}, {2.0f});
  tensors["a"] = ConstantTensor::from_floats({2}, {0.5f, 1.0f});
  std::string bytes = serialize_safetensors(tensors);

  std::string header = R"({"a":{"data_offsets":[0,8],"dtype":"F32","shape":[2]},)"
                       R"("b":{"data_offsets":[8,12],"dtype":"F32","shape":[1]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  CHECK(header.size() % 8 == 0);
  CHECK(bytes == make_file(header, bytes_of({0.5f, 1.0f, 2.0f})));
}

TEST_CASE("safetensors writer streams a big tensor in pieces no larger than a chunk",
          "[engine][safetensors]") {
  // The saver writes weights larger than memory this way; it used to build the whole file in
  // one string.
  struct PieceSink : ByteSink {
    bool write(std::string_view bytes) override {
      largest = std::max(largest, bytes.size());
      all.append(bytes);
      return pieces++ < fail_after;
    }
    size_t largest = 0, pieces = 0, fail_after = SIZE_MAX;
    std::string all;
  };
  std::map<std::string, ConstantTensor> tensors = sample_tensors();
  std::vector<std::byte> big(2 * kSafetensorsChunk + 12345);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::byte>(i * 31 % 251);
  tensors["big"] = ConstantTensor::owned(DType::kUInt8, {static_cast<Dim>(big.size())}, big);
  PieceSink sink;
  REQUIRE(write_safetensors(tensors, {{"k", "v"}}, sink));
  CHECK(sink.largest == kSafetensorsChunk);
  CHECK(sink.all == serialize_safetensors(tensors, {{"k", "v"}}));
  PieceSink failing;
  failing.fail_after = 2;  // the sink's failure stops the writer
  CHECK_FALSE(write_safetensors(tensors, {}, failing));
  CHECK(failing.pieces == 3);
}

TEST_CASE("safetensors writer includes __metadata__ only when it is not empty",
          "[engine][safetensors]") {
  std::map<std::string, ConstantTensor> tensors;
  tensors["x"] = ConstantTensor::from_floats({1}, {1.0f});
  CHECK(serialize_safetensors(tensors).find("__metadata__") == std::string::npos);
  std::string with = serialize_safetensors(tensors, {{"k", "v"}});
  CHECK(with.find(R"("__metadata__":{"k":"v"})") != std::string::npos);
}

TEST_CASE("safetensors with no tensors round trips", "[engine][safetensors]") {
  std::string bytes = serialize_safetensors({});
  CHECK(bytes == make_file("{}      "));
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(bytes, diags);
  REQUIRE(file.has_value());
  CHECK(file->tensors.empty());
  CHECK(file->metadata.empty());
}

TEST_CASE("safetensors reader accepts data that is not aligned for its dtype, and aligns it",
          "[engine][safetensors]") {
  // The format promises no alignment; a one-byte tensor first puts the floats at offset 1.
  // Kernels read constants as typed arrays, so the reader hands out an aligned copy.
  std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(make_file(header, "\x2a" + bytes_of({3, -4})), diags);
  INFO(diags.render());
  REQUIRE(file.has_value());
  const ConstantTensor& b = file->tensors.at("b");
  CHECK(float_at(b, 0) == 3.0f);
  CHECK(float_at(b, 1) == -4.0f);
  CHECK(reinterpret_cast<uintptr_t>(b.data) % alignof(float) == 0);
  CHECK(std::to_integer<int>(file->tensors.at("a").data[0]) == 42);
}

TEST_CASE("safetensors reader accepts empty tensors where one tensor ends, not inside one",
          "[engine][safetensors]") {
  // Empty tensors occupy no bytes; torch writes them at the current offset, which is where the
  // tensor before ends (or 0). The reference reader rejects one inside another tensor's data.
  std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("e0":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                       R"("e2":{"dtype":"I64","shape":[3,0],"data_offsets":[8,8]}})";
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(make_file(header, bytes_of({1, 2})), diags);
  INFO(diags.render());
  REQUIRE(file.has_value());
  CHECK(file->tensors.at("e0").nbytes == 0);
  CHECK(file->tensors.at("e2").shape() == Shape{3, 0});

  Diagnostic d = single_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                        R"("e1":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
                                        bytes_of({1, 2})));
  CHECK(d.loc.json_path == "/e1/data_offsets");
  CHECK(d.message == "empty tensor 'e1' sits at byte 4, inside tensor 'a' [0, 8) (an empty tensor "
                     "sits where one tensor ends)");
}

TEST_CASE("safetensors header may carry trailing spaces", "[engine][safetensors]") {
  std::string header = R"({"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}   )";
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse(make_file(header, bytes_of({7})), diags);
  REQUIRE(file.has_value());
  CHECK(file->tensors.at("a").shape().empty());
  CHECK(float_at(file->tensors.at("a"), 0) == 7.0f);
}

TEST_CASE("safetensors rejects data that no tensor covers: a hole, a gap at 0, trailing bytes",
          "[engine][safetensors]") {
  // The reference reader requires the tensors to cover the data section exactly; bytes outside
  // every tensor would be carried along unseen.
  Diagnostic hole = single_error(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                           R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                                           std::string(12, '\0')));
  CHECK(hole.loc.json_path == "/b/data_offsets");
  CHECK(hole.message == "data of tensor 'b' starts at byte 8, but tensor 'a' ends at 4: bytes "
                        "[4, 8) belong to no tensor");

  Diagnostic gap = single_error(one_tensor(R"({"dtype":"F32","shape":[5],"data_offsets":[4,24]})"));
  CHECK(gap.message == "data of tensor 'w' starts at byte 4, leaving bytes [0, 4) of the data "
                       "section unused");

  Diagnostic tail = single_error(one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"));
  CHECK(tail.loc.json_path == "/w/data_offsets");
  CHECK(tail.message == "the data section holds 24 bytes, but its last tensor 'w' ends at 8: 16 "
                        "trailing bytes belong to no tensor");

  Diagnostic none = single_error(make_file("{}", "x"));
  CHECK(none.loc.json_path.empty());
  CHECK(none.message == "the data section holds 1 bytes, but the header declares no tensors");
}

TEST_CASE("safetensors rejects a NUL byte in the header, also as padding", "[engine][safetensors]") {
  // nlohmann stops at a NUL, so whatever follows it was accepted unread.
  std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  CHECK(single_error(make_file(header + std::string(3, '\0'), "abcd")).message ==
        "header is not valid JSON: a NUL byte at byte 62 (a header is padded with spaces)");
  CHECK(single_error(make_file(header + std::string(1, '\0') + R"({"x": 1})", "abcd")).message ==
        "header is not valid JSON: a NUL byte at byte 62 (a header is padded with spaces)");
}

// ** files on disk and ownership **

TEST_CASE("read_safetensors maps a file written to disk", "[engine][safetensors]") {
  std::string dir = testing::make_temp_dir("safetensors-read");
  std::string path = dir + "/weights.safetensors";
  std::string bytes = serialize_safetensors(sample_tensors(), {{"source", "test"}});
  testing::write_file(path, bytes);

  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = read_safetensors(path, diags);
  INFO(diags.render());
  REQUIRE(file.has_value());
  CHECK(file->metadata.at("source") == "test");
  CHECK(file->tensors.size() == 6);
  CHECK(float_at(file->tensors.at("conv.bias"), 1) == 0.25f);
  CHECK(serialize_safetensors(file->tensors, file->metadata) == bytes);
}

TEST_CASE("a tensor keeps its mapped bytes alive after its SafetensorsFile is gone",
          "[engine][safetensors]") {
  std::string dir = testing::make_temp_dir("safetensors-owner");
  std::string path = dir + "/weights.safetensors";
  std::map<std::string, ConstantTensor> tensors;
  tensors["w"] = ConstantTensor::from_floats({3}, {1.5f, 2.5f, 3.5f});
  testing::write_file(path, serialize_safetensors(tensors));

  ConstantTensor kept;
  {
    DiagnosticEngine diags;
    std::optional<SafetensorsFile> file = read_safetensors(path, diags);
    REQUIRE(file.has_value());
    kept = file->tensors.at("w");
  }
  // Removing the file does not matter either: the mapping holds the inode.
  std::filesystem::remove(path);
  REQUIRE(kept.owner != nullptr);
  CHECK(kept.owner.get() == static_cast<const void*>(kept.data));
  CHECK(float_at(kept, 0) == 1.5f);
  CHECK(float_at(kept, 2) == 3.5f);
}

TEST_CASE("parse_safetensors shares ownership of the caller's buffer", "[engine][safetensors]") {
  std::map<std::string, ConstantTensor> tensors;
  tensors["w"] = ConstantTensor::from_floats({2}, {9.0f, 10.0f});
  auto buffer = std::make_shared<const std::string>(serialize_safetensors(tensors));
  std::weak_ptr<const std::string> watch = buffer;

  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = parse_safetensors(
      reinterpret_cast<const std::byte*>(buffer->data()), buffer->size(), buffer, kName, diags);
  REQUIRE(file.has_value());
  ConstantTensor kept = file->tensors.at("w");
  buffer.reset();
  file.reset();
  CHECK_FALSE(watch.expired());
  CHECK(float_at(kept, 1) == 10.0f);
  kept = ConstantTensor{};
  CHECK(watch.expired());
}

// ** rejected files **

TEST_CASE("read_safetensors reports a missing file with the system's reason",
          "[engine][safetensors]") {
  std::string path = testing::make_temp_dir("safetensors-missing") + "/nope.safetensors";
  DiagnosticEngine diags;
  CHECK_FALSE(read_safetensors(path, diags).has_value());
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.render() ==
        path + ": error: cannot open '" + path + "': No such file or directory\n");
}

TEST_CASE("read_safetensors rejects a directory", "[engine][safetensors]") {
  std::string dir = testing::make_temp_dir("safetensors-dir");
  DiagnosticEngine diags;
  CHECK_FALSE(read_safetensors(dir, diags).has_value());
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.diagnostics()[0].message == "'" + dir + "' is a directory, not a safetensors file");
}

TEST_CASE("read_safetensors reports an empty file as too small", "[engine][safetensors]") {
  // mmap cannot map zero bytes; the empty file must still get a diagnostic, not a crash.
  std::string path = testing::make_temp_dir("safetensors-empty") + "/empty.safetensors";
  testing::write_file(path, "");
  DiagnosticEngine diags;
  CHECK_FALSE(read_safetensors(path, diags).has_value());
  CHECK(diags.render() ==
        path + ": error: file too small for a safetensors header: 0 bytes, expected at least 8\n");
}

TEST_CASE("safetensors rejects a file shorter than the length prefix", "[engine][safetensors]") {
  Diagnostic d = single_error(std::string("\x02\0\0\0\0", 5));
  CHECK(d.message == "file too small for a safetensors header: 5 bytes, expected at least 8");
  CHECK(d.loc.json_path.empty());
}

TEST_CASE("safetensors rejects a header length beyond the end of the file",
          "[engine][safetensors]") {
  std::string bytes = make_file("{}");
  bytes[0] = 100;  // claims a 100-byte header in a 10-byte file
  Diagnostic d = single_error(bytes);
  CHECK(d.message ==
        "header length 100 exceeds the file size of 10 bytes (at most 2 bytes can follow the "
        "8-byte length)");

  // A length near 2^64 must not wrap around in the bounds check.
  std::string huge = make_file("{}");
  for (int i = 0; i < 8; ++i) huge[i] = '\xff';
  CHECK(single_error(huge).message ==
        "header length 18446744073709551615 exceeds the file size of 10 bytes (at most 2 bytes "
        "can follow the 8-byte length)");
}

TEST_CASE("safetensors rejects a header that is not JSON and says where", "[engine][safetensors]") {
  Diagnostic d = single_error(make_file(R"({"w": nope})"));
  CHECK(d.message ==
        "header is not valid JSON: parse error at line 1, column 8: syntax error while parsing "
        "value - invalid literal; last read: '\"w\": no'");
  CHECK(single_error(make_file(""))
            .message.rfind("header is not valid JSON: parse error at line 1, column 1: ", 0) == 0);
}

TEST_CASE("safetensors rejects a header that is not an object", "[engine][safetensors]") {
  Diagnostic d = single_error(make_file("[1, 2]"));
  CHECK(d.message == "header must be a JSON object mapping tensor names to entries, got [1,2]");
  CHECK(d.loc.json_path.empty());
}

TEST_CASE("safetensors rejects a tensor entry that is not an object", "[engine][safetensors]") {
  Diagnostic d = single_error(one_tensor("3"));
  CHECK(d.loc.json_path == "/w");
  CHECK(d.message ==
        "tensor 'w' must be an object with 'dtype', 'shape' and 'data_offsets', got 3");
}

TEST_CASE("safetensors reports every missing key of a tensor", "[engine][safetensors]") {
  DiagnosticEngine diags;
  CHECK_FALSE(parse(one_tensor(R"({"shape":[6]})"), diags).has_value());
  CHECK(diags.render() ==
        "w.safetensors: /w: error: tensor 'w' is missing 'dtype'\n"
        "w.safetensors: /w: error: tensor 'w' is missing 'data_offsets'\n");
}

TEST_CASE("safetensors rejects unknown keys in a tensor entry", "[engine][safetensors]") {
  Diagnostic d =
      single_error(one_tensor(R"({"dtype":"F32","shape":[6],"data_offsets":[0,24],"scale":2})"));
  CHECK(d.loc.json_path == "/w/scale");
  CHECK(d.message ==
        "unknown key 'scale' in tensor 'w' (expected 'dtype', 'shape' and 'data_offsets')");
}

TEST_CASE("safetensors rejects an unknown dtype and lists the known ones",
          "[engine][safetensors]") {
  Diagnostic d = single_error(one_tensor(R"({"dtype":"F8","shape":[6],"data_offsets":[0,24]})"));
  CHECK(d.loc.json_path == "/w/dtype");
  CHECK(d.message ==
        "unknown dtype 'F8' (expected one of F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL)");

  Diagnostic n = single_error(one_tensor(R"({"dtype":4,"shape":[6],"data_offsets":[0,24]})"));
  CHECK(n.loc.json_path == "/w/dtype");
  CHECK(n.message == "dtype must be a string such as 'F32', got 4");
}

TEST_CASE("safetensors rejects a shape that is not a list of non-negative integers",
          "[engine][safetensors]") {
  auto [shape, path, message] = GENERATE(table<std::string, std::string, std::string>({
      {R"("6")", "/w/shape", R"(shape must be a list of non-negative integers, got "6")"},
      {R"({"n":6})", "/w/shape", R"(shape must be a list of non-negative integers, got {"n":6})"},
      {"[2, -3]", "/w/shape/1", "shape dims must be non-negative integers, got -3"},
      {"[2.0, 3]", "/w/shape/0", "shape dims must be non-negative integers, got 2.0"},
      {R"([2, "3"])", "/w/shape/1", R"(shape dims must be non-negative integers, got "3")"},
      {"[null]", "/w/shape/0", "shape dims must be non-negative integers, got null"},
      {"[9223372036854775808]", "/w/shape/0",
       "shape dim 9223372036854775808 does not fit in int64"},
  }));
  INFO(shape);
  Diagnostic d =
      single_error(one_tensor(R"({"dtype":"F32","shape":)" + shape + R"(,"data_offsets":[0,24]})"));
  CHECK(d.loc.json_path == path);
  CHECK(d.message == message);
}

TEST_CASE("safetensors rejects a shape whose element count overflows", "[engine][safetensors]") {
  Diagnostic d = single_error(
      one_tensor(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,24]})"));
  CHECK(d.loc.json_path == "/w/shape");
  CHECK(d.message == "element count of shape [4294967296, 4294967296] overflows int64");

  // The count fits in int64 but the byte size of an 8-byte dtype does not fit in 64 bits.
  Diagnostic bytes = single_error(
      one_tensor(R"({"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,24]})"));
  CHECK(bytes.loc.json_path == "/w/shape");
  CHECK(bytes.message == "shape [4611686018427387904] has too many elements to be stored");
}

TEST_CASE("safetensors rejects data_offsets that are not two ordered integers",
          "[engine][safetensors]") {
  auto [offsets, path, message] = GENERATE(table<std::string, std::string, std::string>({
      {"[0]", "/w/data_offsets",
       "data_offsets must be a list of two integers [begin, end], got [0]"},
      {"[0,8,16]", "/w/data_offsets",
       "data_offsets must be a list of two integers [begin, end], got [0,8,16]"},
      {R"("0-24")", "/w/data_offsets",
       R"(data_offsets must be a list of two integers [begin, end], got "0-24")"},
      {"[-1,23]", "/w/data_offsets/0",
       "data_offsets entries must be non-negative integers, got -1"},
      {"[0,24.0]", "/w/data_offsets/1",
       "data_offsets entries must be non-negative integers, got 24.0"},
      {"[24,0]", "/w/data_offsets", "data_offsets begin 24 is after end 0"},
  }));
  INFO(offsets);
  Diagnostic d =
      single_error(one_tensor(R"({"dtype":"F32","shape":[6],"data_offsets":)" + offsets + "}"));
  CHECK(d.loc.json_path == path);
  CHECK(d.message == message);
}

TEST_CASE("safetensors rejects data_offsets whose size does not match dtype and shape",
          "[engine][safetensors]") {
  Diagnostic d = single_error(one_tensor(R"({"dtype":"F32","shape":[2,3],"data_offsets":[0,20]})"));
  CHECK(d.loc.json_path == "/w/data_offsets");
  CHECK(d.message == "data_offsets [0, 20] span 20 bytes, but F32 [2, 3] needs 24 bytes");
}

TEST_CASE("safetensors rejects data_offsets outside the data section", "[engine][safetensors]") {
  Diagnostic d = single_error(
      one_tensor(R"({"dtype":"F32","shape":[6],"data_offsets":[4,28]})", std::string(24, '\0')));
  CHECK(d.loc.json_path == "/w/data_offsets");
  CHECK(d.message == "data_offsets [4, 28] lie outside the data section, which holds 24 bytes");

  // Offsets near 2^64 must not wrap around to look in range.
  Diagnostic huge = single_error(one_tensor(
      R"({"dtype":"U8","shape":[0],"data_offsets":[18446744073709551615,18446744073709551615]})"));
  CHECK(huge.message ==
        "data_offsets [18446744073709551615, 18446744073709551615] lie outside the data section, "
        "which holds 24 bytes");
}

TEST_CASE("safetensors rejects overlapping tensors and names both", "[engine][safetensors]") {
  // "big" covers the whole section; "b" and "c" both lie inside it, though not next to it
  // after sorting, so each must be reported.
  std::string header = R"({"big":{"dtype":"F32","shape":[6],"data_offsets":[0,24]},)"
                       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                       R"("c":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})";
  DiagnosticEngine diags;
  CHECK_FALSE(parse(make_file(header, std::string(24, '\0')), diags).has_value());
  CHECK(diags.render() ==
        "w.safetensors: /b/data_offsets: error: data of tensor 'b' [4, 8) overlaps tensor 'big' "
        "[0, 24)\n"
        "w.safetensors: /big/data_offsets: note: tensor 'big' is declared here\n"
        "w.safetensors: /c/data_offsets: error: data of tensor 'c' [12, 20) overlaps tensor "
        "'big' [0, 24)\n"
        "w.safetensors: /big/data_offsets: note: tensor 'big' is declared here\n");
}

TEST_CASE("safetensors rejects a partial overlap between neighbours", "[engine][safetensors]") {
  std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  Diagnostic d = single_error(make_file(header, std::string(12, '\0')));
  CHECK(d.loc.json_path == "/b/data_offsets");
  CHECK(d.message == "data of tensor 'b' [4, 12) overlaps tensor 'a' [0, 8)");
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].loc.json_path == "/a/data_offsets");
}

TEST_CASE("safetensors rejects __metadata__ that is not a string-to-string object",
          "[engine][safetensors]") {
  Diagnostic d = single_error(make_file(R"({"__metadata__":["a"]})"));
  CHECK(d.loc.json_path == "/__metadata__");
  CHECK(d.message == R"(__metadata__ must be an object mapping strings to strings, got ["a"])");

  Diagnostic v = single_error(make_file(R"({"__metadata__":{"ok":"x","epoch":3}})"));
  CHECK(v.loc.json_path == "/__metadata__/epoch");
  CHECK(v.message == "__metadata__ values must be strings, got 3");
}

TEST_CASE("safetensors escapes tensor names in JSON pointers", "[engine][safetensors]") {
  std::string header = R"({"enc/layer~1":{"dtype":"X","shape":[6],"data_offsets":[0,24]}})";
  Diagnostic d = single_error(make_file(header, std::string(24, '\0')));
  CHECK(d.loc.json_path == "/enc~1layer~01/dtype");
}

TEST_CASE("safetensors reports the problems of every tensor in one run", "[engine][safetensors]") {
  std::string header = R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]},)"
                       R"("b":{"dtype":"Q4","shape":[1],"data_offsets":[8,4]},)"
                       R"("ok":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  DiagnosticEngine diags;
  CHECK_FALSE(parse(make_file(header, std::string(8, '\0')), diags).has_value());
  std::vector<std::string> paths;
  for (const Diagnostic& d : diags.diagnostics()) paths.push_back(d.loc.json_path);
  CHECK(paths == std::vector<std::string>{"/a/shape/0", "/b/dtype", "/b/data_offsets"});
}

TEST_CASE("safetensors rejects every truncation of a valid file", "[engine][safetensors]") {
  std::string bytes = serialize_safetensors(sample_tensors(), {{"k", "v"}});
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    // A fresh copy of exactly n bytes, so ASan catches any read past the end.
    DiagnosticEngine diags;
    CHECK_FALSE(parse(bytes.substr(0, n), diags).has_value());
    CHECK(diags.has_errors());
  }
}

TEST_CASE("safetensors survives single-byte corruption of the header", "[engine][safetensors]") {
  std::string bytes = serialize_safetensors(sample_tensors(), {{"k", "v"}});
  size_t header_end =
      8 + static_cast<unsigned char>(bytes[0]) + 256 * static_cast<unsigned char>(bytes[1]);
  for (size_t i = 0; i < header_end; ++i) {
    for (char replacement : {'\0', '\xff', '[', '9', '-', '"'}) {
      std::string corrupt = bytes;
      corrupt[i] = replacement;
      DiagnosticEngine diags;
      std::optional<SafetensorsFile> file = parse(corrupt, diags);
      // Either accepted cleanly or rejected with a reason; never both, never neither.
      CHECK(file.has_value() != diags.has_errors());
    }
  }
}

TEST_CASE("safetensors describes deep or long values by their kind", "[engine][safetensors]") {
  // A million nested lists must neither overflow the stack nor land in the message: refused
  // before parsing, at the byte that opens level 257 (8 bytes of length prefix + 256).
  std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  CHECK(single_error(make_file(deep)).message ==
        "header nests JSON more than 256 levels deep (at byte 264)");
  CHECK(single_error(make_file(R"({"w":)" + std::string(255, '[') + std::string(255, ']') + "}"))
            .message ==
        "tensor 'w' must be an object with 'dtype', 'shape' and 'data_offsets', got an array");
  Diagnostic list = single_error(
      one_tensor(R"({"dtype":[1,2,3,4,5,6,7,8,9],"shape":[6],"data_offsets":[0,24]})"));
  CHECK(list.message == "dtype must be a string such as 'F32', got an array");
  Diagnostic text =
      single_error(make_file(R"({"__metadata__":")" + std::string(100, 'x') + R"("})"));
  CHECK(text.message == "__metadata__ must be an object mapping strings to strings, got a string");
}

namespace {

/// This process's resident memory in bytes (/proc/self/statm's second field, in pages).
size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("dropping a mapped tensor's pages frees the memory and keeps its values; owned "
          "tensors are left alone",
          "[engine][safetensors]") {
  const size_t count = size_t{8} << 20 >> 2;  // 8 MiB of floats
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i % 1000);
  std::map<std::string, ConstantTensor> tensors;
  tensors["big"] = ConstantTensor::from_floats({static_cast<int64_t>(count)}, values);
  const std::string path = testing::make_temp_dir("drop_pages") + "/w.safetensors";
  testing::write_file(path, serialize_safetensors(tensors, {}));
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file = read_safetensors(path, diags);
  REQUIRE(file);
  const ConstantTensor& big = file->tensors.at("big");
  CHECK(big.file_backed);
  double sum = 0;
  for (size_t i = 0; i < count; i += 1024) sum += float_at(big, i);  // every page resident
  const size_t before = resident_bytes();
  drop_resident_pages(big);
  const size_t after = resident_bytes();
  CHECK(before >= after + (size_t{6} << 20));  // most of the 8 MiB
  double again = 0;
  for (size_t i = 0; i < count; i += 1024) again += float_at(big, i);  // read back from the file
  CHECK(again == sum);

  // An owned tensor (folded, or an aligned copy) has no file to read back from: untouched.
  const ConstantTensor& owned = tensors.at("big");
  CHECK_FALSE(owned.file_backed);
  drop_resident_pages(owned);
  CHECK(float_at(owned, count - 1) == values[count - 1]);
}
