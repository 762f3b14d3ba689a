#!/usr/bin/python3
"""Unit tests of the exporter's pieces: symbolic dims (tools/export/symbols.py), the
source-line filter (source_lines.py), the capture's naming of parameters and inputs
(aten_capture.py), the ATen path's runs at batch 1 (aten_converter.py), einsum as matmul
(einsum_lowering.py), the drawing of all-zero weights (models.py), compare.py's refusal of
an all-zero reference, where sums of symbols take the ATen path (converter.py's advice),
instance norm as group_norm or batch_norm on both paths (ops.py, aten_instance_norm.py),
torchvision:NAME for every kind of builder, a raising factory as the model's error, and
detection models refused with what to export instead (torchvision_limits.py).

    exporter_unit_test.py SOURCE_DIR
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

SOURCE_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
sys.path.insert(0, os.path.join(SOURCE_DIR, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402

import export  # noqa: E402
from export import aten_capture, aten_converter, einsum_lowering, models  # noqa: E402
from export import source_lines  # noqa: E402
from export.builder import GraphBuilder, TensorInfo  # noqa: E402
from export.files import safetensors_bytes  # noqa: E402
from export.common import Dependent, ExportError, Ref, Unsupported  # noqa: E402
from export.symbols import (Symbols, fold, parse_dynamic_dim, reshape_plan,  # noqa: E402
                            resolve, symbolic_shape)

N_T = Symbols({"N": [(0, 0)], "T": [(0, 1)]}, {"N": 2, "T": 5})


def runs(base, n, t):
    """{None: base, "N": shape at N + 1, "T": shape at T + 1}."""
    return {None: base, "N": n, "T": t}


class ReshapePlanTest(unittest.TestCase):
    def test_identity(self):
        shapes = runs((2, 5, 8), (3, 5, 8), (2, 6, 8))
        self.assertEqual(reshape_plan(N_T, shapes, shapes), [])

    def test_merging_dims_is_a_flatten(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5, 4, 2), (3, 5, 4, 2), (2, 6, 4, 2)),
                                      runs((2, 5, 8), (3, 5, 8), (2, 6, 8))),
                         [("flatten", 2, 3)])

    def test_one_symbolic_size_becomes_minus_one(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5, 8), (3, 5, 8), (2, 5, 8)),
                                      runs((2, 5, 2, 4), (3, 5, 2, 4), (2, 5, 2, 4))),
                         [("reshape", [-1, 5, 2, 4])])

    def test_splitting_a_dim_under_two_symbols_is_an_unflatten(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5, 8), (3, 5, 8), (2, 6, 8)),
                                      runs((2, 5, 2, 4), (3, 5, 2, 4), (2, 6, 2, 4))),
                         [("unflatten", 2, [2, 4])])

    def test_merge_and_split_is_flatten_then_unflatten(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5, 4, 6), (3, 5, 4, 6), (2, 6, 4, 6)),
                                      runs((2, 5, 3, 8), (3, 5, 3, 8), (2, 6, 3, 8))),
                         [("flatten", 2, 3), ("unflatten", 2, [3, 8])])

    def test_a_new_unit_dim_is_an_unsqueeze(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5), (3, 5), (2, 6)),
                                      runs((2, 1, 5), (3, 1, 5), (2, 1, 6))),
                         [("unsqueeze", 1)])

    def test_merging_two_symbolic_dims_is_a_flatten(self):
        self.assertEqual(reshape_plan(N_T, runs((2, 5, 8), (3, 5, 8), (2, 6, 8)),
                                      runs((10, 8), (15, 8), (12, 8))), [("flatten", 0, 1)])

    def test_splitting_one_dim_into_two_symbolic_dims_names_them(self):
        # [N*T, 8] -> [N, T, 8] (nn.MultiheadAttention's output): symbolic sizes
        self.assertEqual(reshape_plan(N_T, runs((10, 8), (15, 8), (12, 8)),
                                      runs((2, 5, 8), (3, 5, 8), (2, 6, 8))),
                         [("reshape", ["N", "T", 8])])
        # [N, T] -> [N, 1, 1, T] (a key padding mask's view)
        self.assertEqual(reshape_plan(N_T, runs((2, 5), (3, 5), (2, 6)),
                                      runs((2, 1, 1, 5), (3, 1, 1, 5), (2, 1, 1, 6))),
                         [("reshape", ["N", 1, 1, "T"])])

    def test_one_size_that_is_no_symbol_becomes_minus_one_beside_symbols(self):
        # [N*T, 8] -> [N, 2T, 4]: 2T is no symbol
        self.assertEqual(reshape_plan(N_T, runs((10, 8), (15, 8), (12, 8)),
                                      runs((2, 10, 4), (3, 10, 4), (2, 12, 4))),
                         [("reshape", ["N", -1, 4])])

    def test_two_sizes_that_are_no_symbol_are_refused(self):
        # [N*T, 8] -> [2N, 2T, 2]
        with self.assertRaisesRegex(Unsupported, "from \\[\\?, 8\\] to \\[\\?, \\?, 2\\] has 2 "
                                                 "sizes that depend on N/T and are not a "
                                                 "symbol each.*--static-batch "
                                                 "or export without --dynamic-dim T"):
            reshape_plan(N_T, runs((10, 8), (15, 8), (12, 8)),
                         runs((4, 10, 2), (6, 10, 2), (4, 12, 2)))

    def test_symbolic_sizes_need_a_registry_that_takes_them(self):
        builder = GraphBuilder(N_T, [])
        builder.info["x"] = (TensorInfo((10, 8), torch.float32),
                             {"N": TensorInfo((15, 8), torch.float32),
                              "T": TensorInfo((12, 8), torch.float32)})
        builder.current = (TensorInfo((2, 5, 8), torch.float32),
                           {"N": TensorInfo((3, 5, 8), torch.float32),
                            "T": TensorInfo((2, 6, 8), torch.float32)})
        builder.current_name = "y"
        with tempfile.TemporaryDirectory() as scratch:
            old_registry = os.path.join(scratch, "ops.md")
            with open(old_registry, "w") as f:
                f.write("# ops\n\n### reshape\n\n```\nreshape(Tensor input, int[] shape)\n"
                        "```\n")
            os.environ["GRAFT_OPS_MD"] = old_registry
            try:
                with self.assertRaisesRegex(Unsupported, "from \\[\\?, 8\\] to \\[N, T, 8\\] "
                                                         "needs symbolic sizes, and graft's "
                                                         "reshape takes int\\[\\]; export with "
                                                         "--static-batch or export without "
                                                         "--dynamic-dim T"):
                    builder.reshape(Ref("x"))
            finally:
                del os.environ["GRAFT_OPS_MD"]
        builder.reshape(Ref("x"))  # the registry of docs/ops.md takes them
        self.assertEqual(builder.nodes[-1]["kwargs"], {"shape": ["N", "T", 8]})
        self.assertEqual(builder.nodes[-1]["meta"]["shape"], ["N", "T", 8])


class SymbolsTest(unittest.TestCase):
    def test_parse_dynamic_dim(self):
        self.assertEqual(parse_dynamic_dim("T=1:1"), ("T", 1, 1))
        self.assertEqual(parse_dynamic_dim("T=tokens:-1"), ("T", "tokens", -1))
        for bad in ("T", "T=1", "=1:1", "1T=0:1", "T=1:x"):
            with self.subTest(text=bad), self.assertRaises(ValueError):
                parse_dynamic_dim(bad)

    def test_resolve_by_name_and_index(self):
        inputs = (torch.zeros(2, 7, dtype=torch.long), torch.zeros(2, 7, dtype=torch.bool))
        symbols = resolve([("T", "ids", 1), ("T", 1, -1)], ["ids", "mask"], inputs, True)
        self.assertEqual(symbols.dims, {"N": [(0, 0), (1, 0)], "T": [(0, 1), (1, 1)]})
        self.assertEqual(symbols.sizes, {"N": 2, "T": 7})
        self.assertEqual(symbols.input_shape(1, (2, 7)), ["N", "T"])
        grown = symbols.grown(inputs, "T")
        self.assertEqual([tuple(x.shape) for x in grown], [(2, 8), (2, 8)])
        self.assertEqual(grown[0].dtype, torch.long)

    def test_resolve_refusals(self):
        inputs = (torch.zeros(2, 7), torch.zeros(2, 3))
        cases = [([("N", 0, 1)], "'N' is the batch's symbol"),
                 ([("T", 2, 1)], "the model has 2 inputs"),
                 ([("T", "y", 1)], "no input named 'y' \\(the inputs are x, m\\)"),
                 ([("T", 0, 2)], "input 'x' has 2 dims"),
                 ([("T", 0, 0)], "already the symbol N \\(the batch"),
                 ([("T", 0, 1), ("T", 1, 1)], "has size 3, but T is 7 elsewhere")]
        for specs, message in cases:
            with self.subTest(specs=specs), self.assertRaisesRegex(ExportError, message):
                resolve(specs, ["x", "m"], inputs, True)

    def test_symbolic_shape(self):
        self.assertEqual(symbolic_shape(N_T, (2, 5, 8), {"N": (3, 5, 8), "T": (2, 6, 8)}),
                         ["N", "T", 8])
        self.assertIsNone(symbolic_shape(N_T, (10, 8), {"N": (15, 8), "T": (12, 8)}))

    def test_fold(self):
        value = fold(N_T, 10, {"N": 15, "T": 10})
        self.assertIsInstance(value, Dependent)
        self.assertEqual(value.describe(), "10 at N=2, 15 at N=3")
        self.assertEqual(fold(N_T, [4, 10], {"N": [4, 10], "T": [4, 10]}), [4, 10])
        with self.assertRaisesRegex(Unsupported, "changes with T"):
            fold(N_T, 0.5, {"N": 0.5, "T": 0.25})

    def test_a_dependent_that_follows_one_symbol_is_that_symbol(self):
        self.assertEqual(fold(N_T, 5, {"N": 5, "T": 6}).symbol(), "T")
        self.assertIsNone(fold(N_T, 4, {"N": 4, "T": 5}).symbol())     # T - 1
        self.assertIsNone(fold(N_T, 10, {"N": 10, "T": 12}).symbol())  # 2 * T
        self.assertIsNone(fold(N_T, 10, {"N": 15, "T": 12}).symbol())  # N * T

    def test_a_dependent_that_follows_the_symbols_linearly_is_their_sum(self):
        # N=2, T=5; check: the value at N=4, T=7
        self.assertEqual(fold(N_T, 4, {"N": 4, "T": 5}, check=6).affine(), "T-1")
        self.assertEqual(fold(N_T, 10, {"N": 10, "T": 12}, check=14).affine(), "2*T")
        self.assertEqual(fold(N_T, 0, {"N": 1, "T": 2}, check=6).affine(), "N+2*T-12")
        self.assertEqual(fold(N_T, 3, {"N": 3, "T": 2}, check=1).affine(), "-T+8")
        self.assertEqual(fold(N_T, 5, {"N": 5, "T": 6}, check=7).affine(), "T")
        # N*T gives 15 and 12 one larger, but 28 (not 24) at N=4, T=7; T*T likewise
        self.assertIsNone(fold(N_T, 10, {"N": 15, "T": 12}, check=28).affine())
        self.assertIsNone(fold(N_T, 25, {"N": 25, "T": 36}, check=49).affine())
        self.assertIsNone(fold(N_T, 4, {"N": 4, "T": 5}).affine())  # no run to check on
        self.assertEqual(fold(N_T, [3, 4], {"N": [3, 4], "T": [3, 5]}, check=[3, 6])[1].affine(),
                         "T-1")

    def test_a_sum_of_symbols_is_written_where_graft_declares_a_scalar_sym_int(self):
        builder = GraphBuilder(N_T, [])
        t_minus_1 = fold(N_T, 4, {"N": 4, "T": 5}, check=6)
        self.assertEqual(builder.symbolic("slice", "end", t_minus_1, "the end"), "T-1")
        self.assertEqual(builder.symbolic("arange", "end", fold(N_T, 10, {"N": 10, "T": 12},
                                                                  check=14), "the end"), "2*T")
        with self.assertRaisesRegex(Unsupported, "the step depends on T"):
            builder.symbolic("slice", "step", t_minus_1, "the step")
        with self.assertRaisesRegex(Unsupported, "the end depends on N/T"):
            builder.symbolic("slice", "end", fold(N_T, 10, {"N": 15, "T": 12}, check=28),
                             "the end")

    def test_a_symbol_is_written_only_where_graft_declares_sym_int(self):
        builder = GraphBuilder(N_T, [])
        t = fold(N_T, 5, {"N": 5, "T": 6})
        self.assertEqual(builder.symbolic("slice", "end", t, "the end"), "T")
        self.assertEqual(builder.symbolic("arange", "end", t, "the end"), "T")
        self.assertEqual(builder.symbolic("slice", "end", 3, "the end"), 3)
        with self.assertRaisesRegex(Unsupported, "the step depends on T .* export without "
                                                 "--dynamic-dim T"):
            builder.symbolic("slice", "step", t, "the step")
        with self.assertRaisesRegex(Unsupported, "the end depends on T"):
            builder.symbolic("slice", "end", fold(N_T, 4, {"N": 4, "T": 5}), "the end")


class SourceLinesTest(unittest.TestCase):
    def test_torchvision_is_model_code_and_torch_is_not(self):
        torch_file = torch.nn.functional.__file__
        vision_file = torchvision.models.shufflenetv2.__file__
        self.assertTrue(os.path.dirname(vision_file).startswith(
            os.path.dirname(os.path.dirname(torch.__file__))))
        self.assertTrue(source_lines.is_library_file(torch_file))
        self.assertFalse(source_lines.is_library_file(vision_file))
        self.assertFalse(source_lines.is_library_file(__file__))


class CaptureNamesTest(unittest.TestCase):
    def test_state_tensors_keep_state_dict_names_and_tie_once(self):
        model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Linear(3, 3))
        model[2].weight = model[0].weight
        unique, index = aten_capture.state_tensors(model)
        names = [n for n, _ in unique]
        self.assertEqual(names, ["0.weight", "0.bias", "1.weight", "1.bias", "2.bias",
                                 "1.running_mean", "1.running_var", "1.num_batches_tracked"])
        self.assertEqual(index["2.weight"], index["0.weight"])
        self.assertEqual(set(index), set(model.state_dict()))

    def test_input_names_follow_forward(self):
        class M(nn.Module):
            def forward(self, ids, mask=None):
                return ids
        self.assertEqual(aten_capture.input_names(M(), 2), ["ids", "mask"])
        self.assertEqual(aten_capture.input_names(nn.Identity(), 1), ["input"])


class BuffersTest(unittest.TestCase):
    """model.json's "buffers": the registered buffers among the tensors the graph reads."""

    @staticmethod
    def conv_bn():
        torch.manual_seed(0)
        return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).eval()

    def check(self, converted):
        self.assertEqual(converted.model["buffers"], ["1.running_mean", "1.running_var"])
        self.assertIn("1.weight", converted.tensors)  # a parameter: read, but no buffer
        self.assertIn("0.weight", converted.tensors)

    def test_batch_norm_running_stats_are_buffers_on_the_fx_path(self):
        self.check(export.convert(self.conv_bn(), (torch.randn(1, 3, 8, 8),), capture="fx",
                                  note=lambda line: None))

    def test_batch_norm_running_stats_are_buffers_on_the_aten_path(self):
        self.check(export.convert(self.conv_bn(), (torch.randn(1, 3, 8, 8),), capture="aten",
                                  note=lambda line: None))

    def test_a_model_without_buffers_has_no_key(self):
        converted = export.convert(nn.Sequential(nn.Linear(3, 2)).eval(), (torch.randn(2, 3),),
                                   capture="fx", note=lambda line: None)
        self.assertNotIn("buffers", converted.model)

    def test_model_json_lists_them_before_the_nodes(self):
        with tempfile.TemporaryDirectory() as out:
            export.export(self.conv_bn(), (torch.randn(1, 3, 8, 8),), out, capture="fx",
                          reference=False, note=lambda line: None)
            with open(os.path.join(out, "model.json")) as f:
                text = f.read()
        self.assertEqual(json.loads(text)["buffers"], ["1.running_mean", "1.running_var"])
        self.assertLess(text.index('"buffers"'), text.index('"nodes"'))


class InstanceNormTest(unittest.TestCase):
    """Instance norm is group_norm with a group per channel on the input's own statistics and
    batch_norm on tracked running statistics, on both paths; on the ATen path the batch norm of
    the input reshaped to (1, N * C, ...) is recomposed (aten_instance_norm.py)."""

    @staticmethod
    def calls(module, capture, shape=(2, 3, 5, 5)):
        converted = export.convert(nn.Sequential(module).eval(), (torch.randn(*shape),),
                                   capture=capture, note=lambda line: None)
        return [(n["target"], n.get("kwargs", {})) for n in converted.model["nodes"]
                if n["op"] == "call_function"]

    def test_own_statistics_are_a_group_norm_with_a_group_per_channel(self):
        for capture in ("fx", "aten"):
            with self.subTest(capture=capture):
                calls = self.calls(nn.InstanceNorm2d(3, affine=True, eps=1e-3), capture)
                self.assertEqual([t for t, _ in calls], ["group_norm"])
                kwargs = calls[0][1]
                self.assertEqual((kwargs["num_groups"], kwargs["eps"]), (3, 1e-3))
                self.assertEqual((kwargs["weight"], kwargs["bias"]),
                                 ({"node": "0_weight"}, {"node": "0_bias"}))

    def test_without_affine_there_is_no_weight_and_rank_5_works(self):
        for capture in ("fx", "aten"):
            with self.subTest(capture=capture):
                calls = self.calls(nn.InstanceNorm3d(4), capture, (2, 4, 3, 5, 5))
                self.assertEqual(calls, [("group_norm", {"num_groups": 4, "eps": 1e-5})])

    def test_running_statistics_are_a_batch_norm(self):
        for capture in ("fx", "aten"):
            with self.subTest(capture=capture):
                calls = self.calls(nn.InstanceNorm1d(3, track_running_stats=True), capture,
                                   (2, 3, 7))
                self.assertEqual([t for t, _ in calls], ["batch_norm"])

    def test_a_tracking_module_in_training_mode_is_refused(self):
        module = nn.Sequential(nn.InstanceNorm2d(3, track_running_stats=True))
        with self.assertRaises(ExportError) as caught:
            export.convert(module.train(), (torch.randn(2, 3, 5, 5),), capture="fx",
                           note=lambda line: None)
        self.assertIn("InstanceNorm2d with track_running_stats=True in training mode; call "
                      "model.eval()", str(caught.exception))

class BatchOneTest(unittest.TestCase):
    """At batch 1 PyTorch may arrange data movement differently (size-1 dims); the ATen path
    then traces the symbolic batch at 2 and 3, unless batch 1 computes something else."""

    class MovesAtBatchOne(nn.Module):
        def forward(self, x):
            if x.size(0) == 1:  # stands for einsum's and matmul's size-1 folding
                x = x.transpose(1, 2).transpose(1, 2)
            return torch.relu(x)

    class ComputesAtBatchOne(nn.Module):
        def forward(self, x):
            if x.size(0) == 1:
                x = x * 2.0
            return torch.relu(x)

    def runs(self, module, x=None):
        x = torch.randn(1, 3, 4) if x is None else x
        symbols = resolve([], ["x"], (x,), True)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            base, variants, symbols, _ = aten_converter._capture_runs(module, (x,), symbols)
        return base, symbols, stderr.getvalue()

    def test_movement_only_differences_trace_the_batch_at_two(self):
        base, symbols, stderr = self.runs(self.MovesAtBatchOne())
        self.assertEqual(symbols.sizes, {"N": 2})
        self.assertEqual(stderr, "")
        self.assertEqual([str(n.target) for n in base.gm.graph.nodes
                          if n.op == "call_function"], ["aten.relu.default"])

    def test_multihead_attention_at_batch_one_keeps_the_symbolic_batch(self):
        import capture_models
        module, _ = capture_models.self_attention()
        base, symbols, stderr = self.runs(module.eval(), torch.randn(1, 5, 16))
        self.assertEqual(symbols.sizes, {"N": 2})
        self.assertEqual(stderr, "")

    def test_other_differences_give_a_static_batch(self):
        base, symbols, stderr = self.runs(self.ComputesAtBatchOne())
        self.assertEqual(symbols.sizes, {})
        self.assertIn("the captured graph changes with the batch size", stderr)
        self.assertIn("aten.mul.Tensor", [str(n.target) for n in base.gm.graph.nodes])


class SumsOfSymbolsCaptureTest(unittest.TestCase):
    """Bounds that are sums of symbols (x[:, :T-1], arange(2*T)) sit in slicing and arange,
    which only the ATen path converts: --capture fx refuses them and says to use
    --capture aten, and auto takes the ATen path and says why."""

    class ShiftedSlice(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):  # (N, T, 8)
            return self.fc(x)[:, :x.shape[1] - 1]

    class Positions(nn.Module):
        def forward(self, x):
            return x + torch.arange(0, 2 * x.shape[1], 2, dtype=torch.float32).unsqueeze(-1)

    class PaddedBySize(nn.Module):
        def forward(self, x):
            return torch.nn.functional.pad(x, (0, 0, 0, x.shape[1] - 1))

    def convert(self, module, capture):
        notes = []
        converted = export.convert(module.eval(), (torch.randn(2, 6, 8),), capture=capture,
                                   dynamic_dims=[("T", 0, 1)], note=notes.append)
        return converted, notes

    def test_a_slice_on_the_fx_path_is_refused_with_the_aten_advice(self):
        with self.assertRaises(ExportError) as caught:
            self.convert(self.ShiftedSlice(), "fx")
        message = str(caught.exception)
        self.assertRegex(message, r"getitem\S* +call_function operator.getitem: indexing or "
                                  r"slicing a tensor \(x\[:, :k\]\) has no conversion on the "
                                  r"torch.fx path")
        self.assertIn("export with --capture aten, or without --capture fx", message)

    def test_auto_takes_the_aten_path_and_writes_the_sum(self):
        converted, notes = self.convert(self.ShiftedSlice(), "auto")
        self.assertEqual(converted.capture, "aten")
        self.assertEqual(len(notes), 1)
        self.assertTrue(notes[0].startswith("captured with make_fx (ATen): torch.fx's graph has "
                                            "calls the torch-level table cannot convert: "),
                        notes[0])
        self.assertIn("indexing or slicing a tensor", notes[0])
        slices = [n for n in converted.model["nodes"] if n.get("target") == "slice"]
        self.assertEqual([(n["kwargs"].get("dim"), n["kwargs"].get("end")) for n in slices],
                         [(1, "T-1")])

    def test_an_arange_of_a_size_on_the_fx_path_is_refused_with_the_aten_advice(self):
        with self.assertRaises(ExportError) as caught:
            self.convert(self.Positions(), "fx")
        message = str(caught.exception)
        self.assertIn("torch.fx cannot trace Positions: TypeError: arange()", message)
        self.assertIn("passed where torch takes a number", message)
        self.assertIn("Or export with --capture aten", message)
        converted, _ = self.convert(self.Positions(), "auto")
        aranges = [n for n in converted.model["nodes"] if n.get("target") == "arange"]
        self.assertEqual([n["kwargs"].get("end") for n in aranges], ["2*T"])

    def test_a_size_both_paths_refuse_gets_no_aten_advice(self):
        with self.assertRaises(ExportError) as caught:
            self.convert(self.PaddedBySize(), "fx")
        message = str(caught.exception)
        self.assertIn("pad depends on T (5 at T=6, 6 at T=7), but graft needs a constant here; "
                      "export without --dynamic-dim T", message)
        self.assertNotIn("--capture aten", message)


class SafetensorsTest(unittest.TestCase):
    def header(self, named):
        data = safetensors_bytes(named)
        length = int.from_bytes(data[:8], "little")
        return json.loads(data[8:8 + length])

    def test_a_scalar_constant_keeps_shape_empty(self):
        # torch.full([], d ** 0.5) and torch.tensor(finfo.min) in attention code are 0-d.
        header = self.header({"s": np.array(3.0, dtype=np.float32),
                              "v": np.zeros((2, 3), dtype=np.float32)})
        self.assertEqual(header["s"]["shape"], [])
        self.assertEqual(header["s"]["data_offsets"], [0, 4])
        self.assertEqual(header["v"]["shape"], [2, 3])

    def test_a_strided_array_is_written_in_row_major_order(self):
        array = np.arange(6, dtype=np.float32).reshape(2, 3).T
        data = safetensors_bytes({"t": array})
        header = self.header({"t": array})
        start = 8 + int.from_bytes(data[:8], "little")
        self.assertEqual(header["t"]["shape"], [3, 2])
        self.assertEqual(np.frombuffer(data[start:start + 24], dtype=np.float32).tolist(),
                         [0, 3, 1, 4, 2, 5])


class EinsumLoweringTest(unittest.TestCase):
    def test_one_matrix_product_per_batch_element_equals_einsum(self):
        g = torch.Generator().manual_seed(0)
        q, k = torch.randn(2, 3, 5, 4, generator=g), torch.randn(2, 3, 6, 4, generator=g)
        p, v = torch.randn(2, 3, 5, 6, generator=g), torch.randn(2, 3, 6, 7, generator=g)
        cases = [("bhqd,bhkd->bhqk", q, k), ("bhqk,bhkd->bhqd", p, v),
                 ("bqhd,bkhd->bhqk", q.transpose(1, 2), k.transpose(1, 2)),
                 ("bhqk,bkhd->bqhd", p, v.transpose(1, 2)), ("bhqd,bhkd->bhkq", q, k),
                 ("ij,jk->ik", q[0, 0], k[0, 0].T), ("b i j , b j k -> b i k", q[0], k[0].mT)]
        for equation, a, b in cases:
            with self.subTest(equation=equation):
                lowered = einsum_lowering.as_matmul(equation, a, b)
                self.assertIsNotNone(lowered)
                torch.testing.assert_close(lowered, torch.einsum(equation, a, b))

    def test_keys_are_written_as_a_transpose(self):
        calls = []

        class Record(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                calls.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        q, k = torch.ones(1, 2, 3, 4), torch.ones(1, 2, 5, 4)
        with Record():
            einsum_lowering.as_matmul("bhqd,bhkd->bhqk", q, k)
        self.assertEqual([c for c in calls if c != "dim"], ["transpose", "matmul"])

    def test_other_equations_are_left_to_torch(self):
        x = torch.ones(2, 3)
        for equation, operands in [("ij,ij->ij", (x, x)), ("ij,jk", (x, x.T)),
                                   ("...i,...i->...", (x, x)), ("ii,ij->ij", (x[:, :2], x)),
                                   ("ij,jk,kl->il", (x, x.T, x)), ("bij,bjk->bik", (x, x.T))]:
            with self.subTest(equation=equation):
                self.assertIsNone(einsum_lowering.lower(torch.functional.einsum,
                                                        (equation,) + operands, None))


class ZeroWeightsTest(unittest.TestCase):
    """A zero-initialised head (torchvision's ViT) makes every output zero, whatever the rest
    of the model computes."""

    def model(self):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4, 2))
        nn.init.zeros_(model[2].weight)
        nn.init.zeros_(model[2].bias)
        return model

    def test_only_an_all_zero_weight_is_drawn(self):
        model = self.model()
        conv = model[0].weight.clone()
        self.assertEqual(models.randomize_zero_weights(model, 0), ["2.weight"])
        self.assertTrue(model[2].weight.any())
        self.assertLess(float(model[2].weight.abs().max()), 0.2)
        self.assertFalse(model[2].bias.any())
        self.assertTrue(torch.equal(model[0].weight, conv))

    def test_the_draw_is_seeded(self):
        a, b, c = self.model(), self.model(), self.model()
        models.randomize_zero_weights(a, 0)
        models.randomize_zero_weights(b, 0)
        models.randomize_zero_weights(c, 1)
        self.assertTrue(torch.equal(a[2].weight, b[2].weight))
        self.assertFalse(torch.equal(a[2].weight, c[2].weight))

    def test_the_outputs_then_depend_on_the_input(self):
        model = self.model()
        x = torch.randn(1, 3, 3, 3)
        self.assertFalse(model(x).any())
        models.randomize_zero_weights(model, 0)
        self.assertFalse(torch.equal(model(x), model(x + 1)))

    def test_compare_refuses_an_all_zero_reference(self):
        import compare
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "reference.json"), "w") as f:
                json.dump({"outputs": [{"node": "y", "file": "output_0.npy"}]}, f)
            np.save(os.path.join(d, "output_0.npy"), np.zeros((1, 4), dtype=np.float32))
            np.savez(os.path.join(d, "out.npz"), y=np.zeros((1, 4), dtype=np.float32))
            ok, lines = compare.compare(d, os.path.join(d, "out.npz"), 1e-4, 1e-4)
            self.assertFalse(ok)
            self.assertIn("all zeros", lines[0])
            np.save(os.path.join(d, "output_0.npy"), np.ones((1, 4), dtype=np.float32))
            np.savez(os.path.join(d, "out.npz"), y=np.ones((1, 4), dtype=np.float32))
            self.assertTrue(compare.compare(d, os.path.join(d, "out.npz"), 1e-4, 1e-4)[0])


class TorchvisionSpecTest(unittest.TestCase):
    """torchvision:NAME is any builder of list_models(), built without downloading weights."""

    def test_a_segmentation_builder_resolves_without_downloading(self):
        def no_download(*args, **kwargs):
            raise AssertionError("a weights download was attempted")
        with mock.patch.object(torchvision.models._api, "load_state_dict_from_url",
                               no_download):
            built = models.build("torchvision:lraspp_mobilenet_v3_large", 0)
        self.assertEqual(type(built.module).__name__, "LRASPP")
        self.assertEqual(built.shapes, [(3, 224, 224)])

    def test_every_kind_is_found(self):
        kinds = {name: models.torchvision_kind(models.torchvision_builder(name))
                 for name in ("resnet18", "fcn_resnet50", "r3d_18", "raft_small",
                              "fasterrcnn_mobilenet_v3_large_320_fpn", "quantized_resnet18")}
        self.assertEqual(kinds, {"resnet18": "classification", "fcn_resnet50": "segmentation",
                                 "r3d_18": "video", "raft_small": "optical_flow",
                                 "fasterrcnn_mobilenet_v3_large_320_fpn": "detection",
                                 "quantized_resnet18": "quantization"})
        for name in torchvision.models.list_models():
            models.torchvision_builder(name)

    def test_an_unknown_name_gets_the_closest_builders(self):
        with self.assertRaisesRegex(ExportError, "no model 'fasterrcnn_mobilenet_v3_large_320'; "
                                    "did you mean fasterrcnn_mobilenet_v3_large_320_fpn"):
            models.build("torchvision:fasterrcnn_mobilenet_v3_large_320", 0)


def run_export_fx(argv):
    """(exit code, stderr) of export_fx.py's main()."""
    import export_fx
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = export_fx.main(argv)
    return code, err.getvalue()


class FactoryErrorTest(unittest.TestCase):
    """An exception from the user's code is the model's error: exit 1, the line, no
    traceback and no "internal error" (which stays for the exporter's own bugs)."""

    FACTORY = ("import urllib.error\n"
               "import torch\n"
               "def fetch():\n"
               "    raise urllib.error.URLError('no network')\n"
               "def make():\n"
               "    fetch()\n"
               "    return torch.nn.Linear(2, 2)\n")

    def export(self, source, spec):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "factory_raises.py")
            with open(path, "w") as f:
                f.write(source)
            return path, run_export_fx([path + spec, "-o", os.path.join(d, "out")])

    def test_a_factory_that_raises(self):
        path, (code, err) = self.export(self.FACTORY, ":make")
        self.assertEqual(code, 1, err)
        self.assertIn("export_fx.py: error: %s:make: the factory raised URLError: "
                      "<urlopen error no network>" % path, err)
        self.assertIn("at %s:4 in fetch: raise urllib.error.URLError('no network')" % path, err)
        self.assertIn("called from %s:6 in make: fetch()" % path, err)
        self.assertNotIn("internal error", err)
        self.assertNotIn("Traceback", err)

    def test_a_module_that_raises_on_import(self):
        path, (code, err) = self.export("x = 1 / 0\n", ":make")
        self.assertEqual(code, 1, err)
        self.assertIn("importing it raised ZeroDivisionError: division by zero\n"
                      "  at %s:1 in <module>: x = 1 / 0" % path, err)
        self.assertNotIn("internal error", err)


class DetectionTest(unittest.TestCase):
    """Detection models are refused on every capture path with the line of torchvision's
    code, what graft cannot capture and what to export instead."""

    def test_faster_rcnn_is_refused_clearly(self):
        for capture in ("fx", "aten", "auto"):
            with self.subTest(capture=capture), tempfile.TemporaryDirectory() as d:
                code, err = run_export_fx(["torchvision:fasterrcnn_mobilenet_v3_large_320_fpn",
                                           "-o", os.path.join(d, "out"), "--capture", capture])
                self.assertEqual(code, 1, err)
                self.assertRegex(err, r"at .*torchvision/models/detection/\w+\.py:\d+ in ")
                self.assertIn("Neither capture path can export FasterRCNN", err)
                self.assertIn("non-maximum suppression", err)
                self.assertIn("model.backbone", err)
                self.assertNotIn("internal error", err)
                self.assertFalse(os.path.exists(os.path.join(d, "out")))

    def test_the_note_follows_the_class_and_names_the_parts(self):
        class MyRetinaNet(torchvision.models.detection.RetinaNet):
            pass
        from export import torchvision_limits
        self.assertEqual(torchvision_limits.kind(object.__new__(MyRetinaNet)), "detection")
        self.assertIn("self.head(list(self.backbone(x).values()))",
                      torchvision_limits.note(object.__new__(MyRetinaNet)))
        raft = object.__new__(torchvision.models.optical_flow.RAFT)
        self.assertIn("F.grid_sample", torchvision_limits.note(raft))
        self.assertEqual(torchvision_limits.note(nn.Linear(2, 2)), "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
