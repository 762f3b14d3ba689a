// .npy / .npz: round trips, numpy's own header layout, and every rejection with its message.
#include "eval/npy.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "tests/testing/test_paths.h"

using namespace graft;
using namespace graft::eval;

namespace {

std::string npy_with_header(const std::string& dict, const std::string& data, char version = 1) {
  std::string out("\x93NUMPY", 6);
  out += version;
  out += '\0';
  std::string header = dict + "\n";
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  if (version != 1) out += std::string(2, '\0');
  return out + header + data;
}

std::string parse_error(const std::string& bytes) {
  DiagnosticEngine diags;
  CHECK_FALSE(parse_npy(bytes, "x.npy", diags).has_value());
  return diags.render();
}

}  // namespace

TEST_CASE("npy round-trips float32 tensors of every rank", "[runtime][npy]") {
  for (Shape shape : {Shape{}, Shape{3}, Shape{2, 3}, Shape{1, 3, 4, 5}, Shape{0, 2}}) {
    Tensor t = Tensor::random(shape, 3);
    std::string bytes = npy_bytes(t);
    CHECK(bytes.find("\n") % 64 == 63);  // the data starts 64-byte aligned, as numpy writes
    DiagnosticEngine diags;
    auto back = parse_npy(bytes, "t.npy", diags);
    INFO(diags.render());
    REQUIRE(back.has_value());
    CHECK(back->shape() == shape);
    CHECK(max_abs_diff(*back, t) == 0);
  }
}

TEST_CASE("npy writes numpy's header text", "[runtime][npy]") {
  const std::string one = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  const std::string two = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(npy_bytes(Tensor::zeros(DType::kFloat32, {3})).substr(10, one.size()) == one);
  CHECK(npy_bytes(Tensor::zeros(DType::kFloat32, {2, 3})).substr(10, two.size()) == two);
}

TEST_CASE("npy round-trips int64 and bool tensors exactly", "[runtime][npy]") {
  for (const Tensor& t : {Tensor::from_ints({2, 2}, {1, -2, 3, int64_t{1} << 62}),
                          Tensor::from_bools({3}, {true, false, true}),
                          Tensor::from_ints({}, {7})}) {
    DiagnosticEngine diags;
    auto back = parse_npy(npy_bytes(t), "t.npy", diags);
    INFO(diags.render());
    REQUIRE(back.has_value());
    CHECK(back->dtype() == t.dtype());
    CHECK(back->shape() == t.shape());
    CHECK(std::string(static_cast<const char*>(back->data()), back->nbytes()) ==
          std::string(static_cast<const char*>(t.data()), t.nbytes()));
  }
}

TEST_CASE("npy reads the int64 and bool files numpy writes", "[runtime][npy]") {
  // numpy.save(f, numpy.array([[1, -2], [3, 1 << 62]], dtype=numpy.int64)) and
  // numpy.save(f, numpy.array([True, False, True])): the header dicts and data.
  std::string i8;
  for (int64_t v : {int64_t{1}, int64_t{-2}, int64_t{3}, int64_t{1} << 62}) {
    i8.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  DiagnosticEngine diags;
  auto ints = parse_npy(
      npy_with_header("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", i8), "i.npy",
      diags);
  auto bools = parse_npy(
      npy_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                      std::string("\x01\x00\x01", 3)),
      "b.npy", diags);
  INFO(diags.render());
  REQUIRE(ints.has_value());
  REQUIRE(bools.has_value());
  CHECK(ints->dtype() == DType::kInt64);
  CHECK(std::vector<int64_t>(ints->i64(), ints->i64() + 4) ==
        std::vector<int64_t>{1, -2, 3, int64_t{1} << 62});
  CHECK(bools->dtype() == DType::kBool);
  CHECK(std::vector<uint8_t>(bools->b8(), bools->b8() + 3) == std::vector<uint8_t>{1, 0, 1});
  CHECK(npy_bytes(*ints).substr(10, 21) == "{'descr': '<i8', 'for");
  CHECK(npy_bytes(*bools).substr(10, 21) == "{'descr': '|b1', 'for");
}

TEST_CASE("npy reads float64 by narrowing and version 2 headers", "[runtime][npy]") {
  double values[2] = {1.5, -2.25};
  std::string data(reinterpret_cast<const char*>(values), sizeof values);
  DiagnosticEngine diags;
  auto t = parse_npy(npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", data, 2),
                     "x.npy", diags);
  REQUIRE(t.has_value());
  CHECK(t->f32()[0] == 1.5f);
  CHECK(t->f32()[1] == -2.25f);
}

TEST_CASE("npy rejects malformed files with located messages", "[runtime][npy]") {
  CHECK(parse_error("PK\x03\x04 not numpy") ==
        "x.npy: error: not a .npy file (it does not start with the magic '\\x93NUMPY')\n");
  CHECK(parse_error(npy_with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                                    std::string(4, '\0'))) ==
        "x.npy: error: unsupported dtype '<i4' (expected '<f4' float32, '<f8' float64, '<i8' "
        "int64 or '|b1' bool)\n");
  CHECK(parse_error(npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
                                    std::string(4, '\0'))) ==
        "x.npy: error: Fortran-order arrays are not supported (save with numpy.ascontiguousarray)\n");
  CHECK(parse_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                    std::string(20, '\0'))) ==
        "x.npy: error: the file holds 20 bytes of data, but shape [2, 3] of '<f4' needs 24\n");
  CHECK(parse_error(npy_with_header("{'descr': '<f4', 'shape': (2, 3), }", "")) ==
        "x.npy: error: malformed .npy header {'descr': '<f4', 'shape': (2, 3), }: missing key "
        "'fortran_order' (a .npy header has 'descr', 'fortran_order' and 'shape') at offset 36 of "
        "the header\n");
  CHECK(parse_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "")) ==
        "x.npy: error: malformed .npy header {'descr': '<f4', 'fortran_order': False, 'shape': "
        "(-1,), }: expected a dimension (a non-negative integer), found '-' at offset 51 of the "
        "header\n");
  std::string truncated = npy_bytes(Tensor::zeros(DType::kFloat32, {2})).substr(0, 30);
  CHECK(parse_error(truncated).find("truncated .npy header") != std::string::npos);
  std::string v9 = npy_bytes(Tensor::zeros(DType::kFloat32, {2}));
  v9[6] = 9;
  CHECK(parse_error(v9) == "x.npy: error: unsupported .npy version 9 (expected 1, 2 or 3)\n");
}

TEST_CASE("npy reads the header dict as numpy writes it, and nothing looser", "[runtime][npy]") {
  // Keys in any order, double quotes, no trailing comma, scalar and 1-d shapes, tabs and
  // newlines as padding: all are Python literals numpy's reader accepts.
  for (const char* dict : {"{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
                           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}",
                           "{ 'descr' : '<f4' ,\t'fortran_order' : False , 'shape' : ( 2 , ) , }"}) {
    DiagnosticEngine diags;
    auto t = parse_npy(npy_with_header(dict, std::string(8, '\0')), "x.npy", diags);
    INFO(dict << "\n" << diags.render());
    REQUIRE(t.has_value());
    CHECK(t->shape() == Shape{2});
  }
  // Each refusal names what is wrong and where (a byte offset into the dict).
  const std::pair<const char*, const char*> refused[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, , 3), }",
       "expected a dimension (a non-negative integer), found ',' at offset 54"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }",
       "a shape of one dimension is written '(n,)'; '(n)' is not a tuple at offset 50"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }",
       "a dimension has no leading zeros at offset 51"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (3,), }",
       "key 'shape' appears twice at offset 56"},
      {"{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
       "key 'descr' appears twice at offset 17"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
       "unexpected key 'extra' (a .npy header has 'descr', 'fortran_order' and 'shape') at offset 56"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }",
       "expected True or False, found 'f' at offset 34"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x",
       "text after the closing '}' at offset 58"},
      {"{'descr': '<f4\\', 'fortran_order': False, 'shape': (2,), }",
       "unsupported character in a string: '\\' at offset 14"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
       "expected '}', found the end of the header at offset 55"},
  };
  for (const auto& [dict, message] : refused) {
    INFO(dict);
    CHECK_THAT(parse_error(npy_with_header(dict, std::string(8, '\0'))),
               Catch::Contains(std::string(": ") + message + " of the header\n"));
  }
}

TEST_CASE("read_npy reports a missing file", "[runtime][npy]") {
  DiagnosticEngine diags;
  CHECK_FALSE(read_npy("/nonexistent/in.npy", diags).has_value());
  CHECK(diags.render() ==
        "/nonexistent/in.npy: error: cannot open '/nonexistent/in.npy': No such file or directory\n");
}

TEST_CASE("read_npy refuses devices and FIFOs without reading or blocking", "[runtime][npy]") {
  DiagnosticEngine diags;
  CHECK_FALSE(read_npy("/dev/zero", diags).has_value());
  CHECK(diags.render() ==
        "/dev/zero: error: '/dev/zero' is not a regular file (it is a character device)\n");
  std::string fifo = testing::make_temp_dir("npy-fifo") + "/in.npy";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  DiagnosticEngine fifo_diags;
  CHECK_FALSE(read_npy(fifo, fifo_diags).has_value());
  CHECK_THAT(fifo_diags.render(), Catch::Contains("is not a regular file (it is a FIFO)"));
}

TEST_CASE("npy checks the declared shape against the data before allocating", "[runtime][npy]") {
  // 16 bytes of data declaring 36 TiB (within the limit for one tensor, beyond any machine):
  // the mismatch is found without trying to allocate.
  std::string dir = testing::make_temp_dir("npy-size");
  testing::write_file(dir + "/small.npy",
                      npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                      "(100000, 100000, 1000), }",
                                      std::string(16, '\0')));
  DiagnosticEngine diags;
  CHECK_FALSE(read_npy(dir + "/small.npy", diags).has_value());
  CHECK(diags.render() == dir + "/small.npy: error: the file holds 16 bytes of data, but shape "
                                "[100000, 100000, 1000] of '<f4' needs 40000000000000\n");
  // A count that overflows int64 says so, instead of wrapping into an absurd size.
  CHECK(parse_error(npy_with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999, 999999999999999), }",
            "")) ==
        "x.npy: error: float32[999999999999999, 999999999999999] would take more than 256 TiB, the "
        "limit for one tensor (its element count overflows int64)\n");
  CHECK(parse_error(npy_with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000000,), }", "")) ==
        "x.npy: error: float32[100000000000000] would take more than 256 TiB, the limit for one "
        "tensor\n");
}

TEST_CASE("npy refuses a header longer than numpy writes", "[runtime][npy]") {
  // Version 2 has a 32-bit header length: 4 GiB of header would be read and searched.
  std::string bytes("\x93NUMPY\x02\x00\x00\x00\x01\x00", 12);
  bytes += "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  bytes.resize(65536 + 12 + 4, ' ');
  CHECK(parse_error(bytes) ==
        "x.npy: error: the .npy header declares 65536 bytes; graft reads headers up to 65535 "
        "bytes\n");
}

TEST_CASE("read_npy reads float32 and float64 files from disk", "[runtime][npy]") {
  std::string dir = testing::make_temp_dir("npy-read");
  Tensor t = Tensor::random({3, 5000}, 4);
  testing::write_file(dir + "/f4.npy", npy_bytes(t));
  DiagnosticEngine diags;
  std::optional<Tensor> back = read_npy(dir + "/f4.npy", diags);
  REQUIRE(back.has_value());
  CHECK(max_abs_diff(*back, t) == 0);
  // float64 is narrowed in blocks; 15000 elements span two of them.
  std::vector<double> values(15000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(t.f32()[i]);
  testing::write_file(
      dir + "/f8.npy",
      npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5000), }",
                      std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8)));
  back = read_npy(dir + "/f8.npy", diags);
  INFO(diags.render());
  REQUIRE(back.has_value());
  CHECK(max_abs_diff(*back, t) == 0);
}

TEST_CASE("npz holds one stored npy entry per array", "[runtime][npy]") {
  std::string error;
  Tensor a = Tensor::random({2, 2}, 1);
  auto bytes = npz_bytes({{"out", a}, {"logits", Tensor::random({3}, 2)}}, &error);
  REQUIRE(bytes.has_value());
  CHECK(bytes->substr(0, 4) == "PK\x03\x04");
  CHECK(bytes->find("out.npy") != std::string::npos);
  CHECK(bytes->find("logits.npy") != std::string::npos);
  // The first entry's data is the npy bytes, stored uncompressed after its 30 + 7 byte header.
  std::string first = npy_bytes(a);
  CHECK(bytes->substr(37, first.size()) == first);
  CHECK(bytes->substr(bytes->size() - 22, 4) == "PK\x05\x06");  // end of central directory

  std::string dir = testing::make_temp_dir("npz");
  DiagnosticEngine diags;
  REQUIRE(write_npz(dir + "/o.npz", {{"out", a}}, diags));
  CHECK(testing::read_file(dir + "/o.npz") == *npz_bytes({{"out", a}}, &error));
}
