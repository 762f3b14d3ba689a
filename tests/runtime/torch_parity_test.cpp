// Reference kernels and the runtime against PyTorch itself: for each case torch_parity.py
// computes the op with torch.nn.functional / torch on random inputs, and both graft paths
// must match its result. Attribute names are torch's keyword names, so one JSON case
// drives both sides. Tagged [torch]: needs /usr/bin/python3 with torch.
#include <cstdlib>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "eval/npy.h"
#include "tests/runtime/runtime_testing.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using namespace graft::testing;
using nlohmann::json;

namespace {

// {op, inputs: [{shape, lo, hi, const, name}], kwargs, list_input}; `name` passes that tensor
// to torch by keyword
const char* const kCases = R"([
  {"op": "conv2d", "inputs": [{"shape": [2, 6, 9, 7]}, {"shape": [4, 3, 3, 3], "const": true}, {"shape": [4], "const": true}],
   "kwargs": {"stride": 2, "padding": 1, "groups": 2}},
  {"op": "conv2d", "inputs": [{"shape": [1, 32, 10, 10]}, {"shape": [48, 32, 3, 3], "const": true}], "kwargs": {"padding": 1}},
  {"op": "conv2d", "inputs": [{"shape": [1, 8, 11, 11]}, {"shape": [8, 1, 5, 5], "const": true}],
   "kwargs": {"padding": 4, "dilation": 2, "groups": 8}},
  {"op": "batch_norm", "inputs": [{"shape": [2, 5, 4, 3]}, {"shape": [5], "const": true}, {"shape": [5], "lo": 0.5, "const": true},
   {"shape": [5], "const": true}, {"shape": [5], "const": true}], "kwargs": {"eps": 0.001}},
  {"op": "layer_norm", "inputs": [{"shape": [3, 4, 10]}, {"shape": [10], "const": true, "name": "weight"},
   {"shape": [10], "const": true, "name": "bias"}],
   "kwargs": {"normalized_shape": [10]}},
  {"op": "linear", "inputs": [{"shape": [2, 3, 7]}, {"shape": [5, 7], "const": true}, {"shape": [5], "const": true}]},
  {"op": "matmul", "inputs": [{"shape": [2, 1, 4, 6]}, {"shape": [3, 6, 5]}]},
  {"op": "matmul", "inputs": [{"shape": [6]}, {"shape": [2, 6, 5]}]},
  {"op": "max_pool2d", "inputs": [{"shape": [1, 3, 9, 9]}], "kwargs": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": true}},
  {"op": "max_pool2d", "inputs": [{"shape": [1, 3, 10, 10]}], "kwargs": {"kernel_size": 2, "dilation": 2}},
  {"op": "avg_pool2d", "inputs": [{"shape": [1, 3, 9, 9]}], "kwargs": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": true}},
  {"op": "avg_pool2d", "inputs": [{"shape": [1, 3, 8, 8]}], "kwargs": {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": false}},
  {"op": "avg_pool2d", "inputs": [{"shape": [1, 3, 7, 7]}], "kwargs": {"kernel_size": 2, "ceil_mode": true}},
  {"op": "avg_pool2d", "inputs": [{"shape": [1, 2, 6, 6]}], "kwargs": {"kernel_size": 2, "divisor_override": 3}},
  {"op": "adaptive_avg_pool2d", "inputs": [{"shape": [2, 4, 10, 7]}], "kwargs": {"output_size": [3, 4]}},
  {"op": "adaptive_max_pool2d", "inputs": [{"shape": [2, 4, 10, 7]}], "kwargs": {"output_size": [3, 4]}},
  {"op": "adaptive_avg_pool2d", "inputs": [{"shape": [2, 4, 7, 7]}], "kwargs": {"output_size": [1, 1]}},
  {"op": "relu6", "inputs": [{"shape": [4, 5], "lo": -8, "hi": 8}]},
  {"op": "hardtanh", "inputs": [{"shape": [4, 5]}], "kwargs": {"min_val": -0.5, "max_val": 1.0}},
  {"op": "leaky_relu", "inputs": [{"shape": [4, 5]}], "kwargs": {"negative_slope": 0.1}},
  {"op": "elu", "inputs": [{"shape": [4, 5]}], "kwargs": {"alpha": 0.5}},
  {"op": "hardswish", "inputs": [{"shape": [4, 5], "lo": -5, "hi": 5}]},
  {"op": "hardsigmoid", "inputs": [{"shape": [4, 5], "lo": -5, "hi": 5}]},
  {"op": "silu", "inputs": [{"shape": [4, 5]}]},
  {"op": "gelu", "inputs": [{"shape": [4, 5]}]},
  {"op": "gelu", "inputs": [{"shape": [4, 5]}], "kwargs": {"approximate": "tanh"}},
  {"op": "erf", "inputs": [{"shape": [4, 5]}]},
  {"op": "rsqrt", "inputs": [{"shape": [4, 5], "lo": 0.1}]},
  {"op": "clamp", "inputs": [{"shape": [4, 5]}], "kwargs": {"min": -0.5}},
  {"op": "sub", "inputs": [{"shape": [3, 1, 5]}, {"shape": [4, 1]}], "kwargs": {"alpha": 2}},
  {"op": "div", "inputs": [{"shape": [1, 4]}, {"shape": [3, 4], "lo": 0.5}]},
  {"op": "pow", "inputs": [{"shape": [3, 4], "lo": 0.5}, {"shape": [4]}]},
  {"op": "flatten", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"start_dim": 1, "end_dim": 2}},
  {"op": "permute", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"dims": [3, 1, 0, 2]}},
  {"op": "transpose", "inputs": [{"shape": [2, 3, 4]}], "kwargs": {"dim0": 0, "dim1": -1}},
  {"op": "squeeze", "inputs": [{"shape": [2, 1, 4, 1]}]},
  {"op": "cat", "inputs": [{"shape": [2, 3, 4]}, {"shape": [2, 5, 4]}], "kwargs": {"dim": 1}, "list_input": true},
  {"op": "mean", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"dim": [1, 3], "keepdim": true}},
  {"op": "sum", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"dim": [-1]}},
  {"op": "softmax", "inputs": [{"shape": [2, 3, 4]}], "kwargs": {"dim": 1}},
  {"op": "log_softmax", "inputs": [{"shape": [2, 3, 4]}], "kwargs": {"dim": -1}},
  {"op": "batch_norm", "inputs": [{"shape": [2, 5, 6]}, {"shape": [5], "const": true}, {"shape": [5], "lo": 0.5, "const": true}]},
  {"op": "conv2d", "inputs": [{"shape": [1, 4, 6, 6]}, {"shape": [6, 4, 2, 2]}], "kwargs": {"stride": [2, 1]}},
  {"op": "relu", "inputs": [{"shape": [3, 4]}]},
  {"op": "sigmoid", "inputs": [{"shape": [3, 4]}]},
  {"op": "tanh", "inputs": [{"shape": [3, 4]}]},
  {"op": "sqrt", "inputs": [{"shape": [3, 4], "lo": 0.0}]},
  {"op": "exp", "inputs": [{"shape": [3, 4]}]},
  {"op": "log", "inputs": [{"shape": [3, 4], "lo": 0.1}]},
  {"op": "neg", "inputs": [{"shape": [3, 4]}]},
  {"op": "reciprocal", "inputs": [{"shape": [3, 4], "lo": 0.5}]},
  {"op": "abs", "inputs": [{"shape": [3, 4]}]},
  {"op": "clamp", "inputs": [{"shape": [3, 4]}], "kwargs": {"min": -0.5, "max": 0.25}},
  {"op": "add", "inputs": [{"shape": [2, 3, 4]}, {"shape": [3, 1]}], "kwargs": {"alpha": 0.5}},
  {"op": "mul", "inputs": [{"shape": [2, 1, 4]}, {"shape": [3, 4]}]},
  {"op": "reshape", "inputs": [{"shape": [2, 3, 4]}], "kwargs": {"shape": [4, -1]}},
  {"op": "unsqueeze", "inputs": [{"shape": [2, 3]}], "kwargs": {"dim": -1}},
  {"op": "mean", "inputs": [{"shape": [2, 3, 4]}]},
  {"op": "dropout", "inputs": [{"shape": [2, 3]}], "kwargs": {"p": 0.5, "training": false}},
  {"op": "softplus", "inputs": [{"shape": [4, 5], "lo": -8, "hi": 8}], "kwargs": {"beta": 3.0}},
  {"op": "softplus", "inputs": [{"shape": [4, 5]}], "kwargs": {"beta": 0.5, "threshold": 0.5}},
  {"op": "maximum", "inputs": [{"shape": [2, 3, 4]}, {"shape": [3, 1]}]},
  {"op": "minimum", "inputs": [{"shape": [1, 4]}, {"shape": [3, 4]}]},
  {"op": "amax", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"dim": [1, 3], "keepdim": true}},
  {"op": "amax", "inputs": [{"shape": [2, 3, 4]}]},
  {"op": "clone", "inputs": [{"shape": [2, 3]}]},
  {"op": "contiguous", "inputs": [{"shape": [2, 3]}]},
  {"op": "interpolate", "inputs": [{"shape": [2, 3, 7, 13]}], "kwargs": {"size": [15, 4]}},
  {"op": "interpolate", "inputs": [{"shape": [1, 2, 5, 6]}], "kwargs": {"scale_factor": [2.0, 1.5]}},
  {"op": "interpolate", "inputs": [{"shape": [1, 2, 10, 9]}], "kwargs": {"scale_factor": [2.05, 2.05]}},
  {"op": "interpolate", "inputs": [{"shape": [2, 3, 7, 13]}], "kwargs": {"size": [15, 4], "mode": "bilinear"}},
  {"op": "interpolate", "inputs": [{"shape": [2, 3, 7, 13]}], "kwargs": {"size": [15, 4], "mode": "bilinear", "align_corners": true}},
  {"op": "interpolate", "inputs": [{"shape": [1, 2, 5, 7]}], "kwargs": {"scale_factor": [1.7, 0.6], "mode": "bilinear"}},
  {"op": "interpolate", "inputs": [{"shape": [1, 2, 5, 7]}], "kwargs": {"scale_factor": [2.5, 2.5], "mode": "bilinear", "align_corners": true}},
  {"op": "interpolate", "inputs": [{"shape": [1, 2, 9, 1]}], "kwargs": {"size": [1, 5], "mode": "bilinear", "align_corners": true}},
  {"op": "conv1d", "inputs": [{"shape": [2, 4, 50]}, {"shape": [8, 4, 5], "const": true}, {"shape": [8], "const": true}],
   "kwargs": {"stride": [2], "padding": [1]}},
  {"op": "conv1d", "inputs": [{"shape": [1, 4, 31]}, {"shape": [6, 2, 3], "const": true}], "kwargs": {"groups": 2, "dilation": [3], "padding": [2]}},
  {"op": "conv1d", "inputs": [{"shape": [4, 20]}, {"shape": [3, 4, 3], "const": true}]},
  {"op": "conv3d", "inputs": [{"shape": [1, 3, 6, 7, 8]}, {"shape": [4, 3, 3, 3, 3], "const": true}, {"shape": [4], "const": true}],
   "kwargs": {"stride": [1, 2, 2], "padding": [1, 1, 1]}},
  {"op": "conv3d", "inputs": [{"shape": [2, 4, 5, 6, 7]}, {"shape": [4, 2, 1, 3, 3]}], "kwargs": {"groups": 2, "dilation": [1, 2, 1]}},
  {"op": "conv_transpose2d", "inputs": [{"shape": [3, 6, 7, 5]}, {"shape": [6, 3, 3, 3], "const": true}, {"shape": [6], "const": true}],
   "kwargs": {"stride": [2, 2], "padding": [1, 1], "output_padding": [1, 1], "groups": 2}},
  {"op": "conv_transpose2d", "inputs": [{"shape": [2, 4, 6, 9]}, {"shape": [4, 5, 3, 3], "const": true}],
   "kwargs": {"dilation": [2, 2], "padding": [2, 1], "output_padding": [1, 0]}},
  {"op": "conv_transpose1d", "inputs": [{"shape": [3, 5, 11]}, {"shape": [5, 7, 5], "const": true}, {"shape": [7], "const": true}],
   "kwargs": {"stride": [3], "padding": [2], "output_padding": [2]}},
  {"op": "conv_transpose3d", "inputs": [{"shape": [2, 4, 3, 5, 4]}, {"shape": [4, 2, 3, 3, 3], "const": true}, {"shape": [4], "const": true}],
   "kwargs": {"stride": [2, 2, 2], "padding": [1, 1, 1], "output_padding": [1, 1, 1], "groups": 2}},
  {"op": "group_norm", "inputs": [{"shape": [3, 6, 5, 7], "lo": 9, "hi": 11}, {"shape": [6], "const": true, "name": "weight"},
   {"shape": [6], "const": true, "name": "bias"}], "kwargs": {"num_groups": 3}},
  {"op": "group_norm", "inputs": [{"shape": [2, 8, 9]}], "kwargs": {"num_groups": 8}},
  {"op": "group_norm", "inputs": [{"shape": [2, 8, 3, 3]}], "kwargs": {"num_groups": 1}},
  {"op": "lt", "inputs": [{"shape": [2, 3, 4]}, {"shape": [3, 1]}]},
  {"op": "ge", "inputs": [{"shape": [4, 5]}, {"shape": [5]}]},
  {"op": "logical_not", "inputs": [{"shape": [3, 4], "lo": -1, "hi": 1}]},
  {"op": "full_like", "inputs": [{"shape": [3, 4]}], "kwargs": {"fill_value": 2.5}},
  {"op": "cumsum", "inputs": [{"shape": [2, 5, 3]}], "kwargs": {"dim": 1}},
  {"op": "argmax", "inputs": [{"shape": [2, 5, 3]}], "kwargs": {"dim": -1}},
  {"op": "argmin", "inputs": [{"shape": [4, 6]}]},
  {"op": "amin", "inputs": [{"shape": [2, 3, 4, 5]}], "kwargs": {"dim": [1, 3], "keepdim": true}},
  {"op": "pad", "inputs": [{"shape": [2, 3, 5, 6]}], "kwargs": {"pad": [2, -1, 0, 3], "value": -1.5}},
  {"op": "pad", "inputs": [{"shape": [2, 3, 5, 6]}], "kwargs": {"pad": [3, 2, 4, 1], "mode": "reflect"}},
  {"op": "pad", "inputs": [{"shape": [1, 2, 3, 4, 5]}], "kwargs": {"pad": [1, 2, 0, 3, 2, 2], "mode": "replicate"}},
  {"op": "pad", "inputs": [{"shape": [1, 2, 4, 5]}], "kwargs": {"pad": [-1, 3, 4, 2], "mode": "circular"}},
  {"op": "max_pool3d", "inputs": [{"shape": [1, 3, 7, 9, 9]}],
   "kwargs": {"kernel_size": [3, 3, 3], "stride": [2, 2, 2], "padding": [1, 1, 1], "ceil_mode": true}},
  {"op": "avg_pool3d", "inputs": [{"shape": [1, 3, 7, 9, 9]}],
   "kwargs": {"kernel_size": [3, 3, 3], "stride": [2, 2, 2], "padding": [1, 1, 1], "ceil_mode": true}},
  {"op": "avg_pool3d", "inputs": [{"shape": [2, 2, 4, 6, 6]}], "kwargs": {"kernel_size": [2, 3, 3], "divisor_override": 5}},
  {"op": "adaptive_avg_pool3d", "inputs": [{"shape": [2, 4, 5, 10, 7]}], "kwargs": {"output_size": [3, 4, 2]}},
  {"op": "slice_scatter", "inputs": [{"shape": [2, 3, 7, 7]}, {"shape": [2, 3, 7, 3]}],
   "kwargs": {"dim": 3, "start": 1, "end": 100, "step": 2}},
  {"op": "select_scatter", "inputs": [{"shape": [2, 3, 7, 7]}, {"shape": [2, 7, 7]}], "kwargs": {"dim": 1, "index": -3}}
])";

AttrValue to_attr(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && (v.empty() || v[0].is_number_integer())) return v.get<std::vector<int64_t>>();
  if (v.is_array()) return v.get<std::vector<double>>();
  return {};
}

}  // namespace

TEST_CASE("reference and runtime match PyTorch op by op", "[runtime][torch]") {
  std::string dir = make_temp_dir("torch-parity");
  write_file(dir + "/cases.json", kCases);
  std::string command = "/usr/bin/python3 " + source_path("tests/runtime/torch_parity.py") + " " +
                        dir + "/cases.json " + dir;
  REQUIRE(std::system(command.c_str()) == 0);
  json cases = json::parse(kCases);
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    INFO("case " << i << ": " << c["op"].get<std::string>());
    DiagnosticEngine diags;
    GraphBuilder b;
    std::vector<Input> inputs;
    std::vector<eval::Tensor> feeds;
    for (size_t j = 0; j < c["inputs"].size(); ++j) {
      auto t = eval::read_npy(dir + "/in_" + std::to_string(i) + "_" + std::to_string(j) + ".npy", diags);
      REQUIRE(t.has_value());
      std::string name = "in" + std::to_string(j);
      if (c["inputs"][j].value("const", false)) {
        b.graph().constants().set(name, ConstantTensor::from_floats(t->shape(), std::vector<float>(t->f32(), t->f32() + t->numel())));
        Node* n = b.graph().add_get_attr(name, name);
        n->meta().set_type(TensorType{DType::kFloat32, t->shape()});
        inputs.push_back(in(n));
      } else {
        inputs.push_back(in(b.input(name, t->shape())));
        feeds.push_back(*t);
      }
    }
    std::map<std::string, AttrValue> attrs;
    if (c.contains("kwargs")) {
      const json& kwargs = c["kwargs"];
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it) attrs[it.key()] = to_attr(it.value());
    }
    b.output({b.call(c["op"].get<std::string>(), inputs, attrs)});
    auto want = eval::read_npy(dir + "/out_" + std::to_string(i) + ".npy", diags);
    REQUIRE(want.has_value());
    auto ref = eval::run_reference(b.graph(), feeds, diags);
    INFO(diags.render());
    REQUIRE(ref.has_value());
    CHECK(eval::allclose((*ref)[0], *want, 1e-5, 1e-5));
    auto exe = runtime::compile(b.graph(), {}, diags);
    REQUIRE(exe != nullptr);
    auto got = exe->run(feeds, diags);
    REQUIRE(got.has_value());
    CHECK(eval::allclose((*got)[0], *want, 1e-4, 1e-5));
  }
}
