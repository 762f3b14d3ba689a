#!/usr/bin/python3
"""The exporter's capture paths, one CTest test per case:

    aten_test.py SOURCE_DIR WORK_DIR REWRITE CASE

Cases: which path `auto` picks; the factory form with an int64 input; --dynamic-dim on both
paths (the exported JSON holds the symbol and a -1 reshape, and graft runs the model at another
length like PyTorch); state_dict names on the ATen path; the error naming the model's source
line for an op without a row; torchvision's files as model code in tracer errors; and, for
each hand-written model of tests/models that needs ops graft lacks, the capture and the list
of missing graft ops, and that, with every proposed op, the exported graph run by PyTorch
(graft_reference.py) gives the model's outputs. Registries with or without particular ops are
given to the exporter through GRAFT_OPS_MD (tools/export/registry.py), so the cases do not
change as graft gains ops.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_errors_test import Case, fail  # noqa: E402


class AtenCase(Case):
    def __init__(self, source_dir, work, rewrite):
        super().__init__(source_dir, work)
        self.rewrite = rewrite
        self.capture_models = os.path.join(HERE, "capture_models.py")
        sys.path.insert(0, os.path.join(source_dir, "tools"))

    def model(self, file, factory):
        return "%s:%s" % (os.path.join(HERE, file), factory)

    def expect_exported(self, result, *needles):
        if result.returncode != 0:
            fail("the export failed with exit code %d" % result.returncode)
        for needle in needles:
            if needle not in result.stderr + result.stdout:
                fail("the output lacks %r" % needle)

    def registry(self, without=(), adding=()):
        """A copy of docs/ops.md without the sections of `without` and with PROPOSED's
        signatures of `adding`; returns the GRAFT_OPS_MD environment for it."""
        from export import aten_ops
        with open(os.path.join(self.src, "docs", "ops.md")) as f:
            sections = re.split(r"(?m)^(?=### )", f.read())
        kept = [s for s in sections if not (s.startswith("### ") and s.split()[1] in without)]
        kept += ["### %s\n\n```\n%s\n```\n\n" % (op, aten_ops.PROPOSED[op]) for op in adding]
        path = os.path.join(self.work, "ops.md")
        with open(path, "w") as f:
            f.write("".join(kept))
        return {"GRAFT_OPS_MD": path}

    def run_graft(self, model_json, inputs, out):
        command = [self.rewrite, "run", model_json, "-o", out]
        for name, file in inputs.items():
            command += ["--input", "%s=%s" % (name, file)]
        print("+ " + " ".join(command))
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        print(result.stdout)
        if result.returncode != 0:
            fail("rewrite run failed with exit code %d" % result.returncode)
        with np.load(out) as npz:
            return [npz[name] for name in npz.files]


def load(path):
    with open(path) as f:
        return json.load(f)


def nodes(model_dir, op=None):
    return [n for n in load(os.path.join(model_dir, "model.json"))["nodes"]
            if op is None or n["op"] == op]


def safetensors_names(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    return sorted(k for k in json.loads(data[8:8 + length]) if k != "__metadata__")


def source_line(file, text):
    with open(file) as f:
        for i, line in enumerate(f, 1):
            if line.strip().startswith(text):
                return i
    raise AssertionError("%s has no line with %r" % (file, text))


# ** which path **


def case_auto_picks_fx(c):
    out = os.path.join(c.work, "out")
    r = c.export("small_cnn", out)
    c.expect_exported(r, "export_fx.py: captured with torch.fx\n")
    if load(os.path.join(out, "model.json"))["metadata"]["capture"] != "fx":
        fail("metadata.capture is not 'fx'")


def case_auto_picks_aten(c):
    out = os.path.join(c.work, "out")
    r = c.export_spec(c.model("capture_models.py", "channel_shuffle"), out, "--batch", "2")
    line = source_line(c.capture_models, "b, c, h, w = y.size()")
    c.expect_exported(r, "export_fx.py: captured with make_fx (ATen): torch.fx could not "
                         "trace: ", "capture_models.py:%d\n" % line)
    if load(os.path.join(out, "model.json"))["metadata"]["capture"] != "aten":
        fail("metadata.capture is not 'aten'")


# ** inputs and symbols **


def case_int64_input_factory(c):
    out = os.path.join(c.work, "out")
    spec = c.model("capture_models.py", "token_bag")
    r = c.export_spec(spec, out, "--batch", "2")
    c.expect_refused(r, "returns its example inputs; --batch and --input-shape do not apply")
    r = c.export_spec(spec, out, "--reference", env=c.registry(adding=["embedding"]))
    c.expect_exported(r, "captured with make_fx (ATen)")
    placeholders = nodes(out, "placeholder")
    want = [{"name": "ids", "op": "placeholder", "target": "ids",
             "meta": {"shape": ["N", 5], "dtype": "int64"}}]
    if placeholders != want:
        fail("placeholders %s, expected %s" % (placeholders, want))
    embedding = [n for n in nodes(out) if n.get("target") == "embedding"]
    if len(embedding) != 1 or embedding[0]["args"] != [{"node": "ids"},
                                                       {"node": "embedding_weight"}]:
        fail("expected embedding(ids, embedding_weight), got %s" % embedding)
    ids = np.load(os.path.join(out, "input_ids.npy"))
    if ids.dtype != np.int64 or ids.shape != (2, 5):
        fail("input_ids.npy is %s %s, expected int64 (2, 5)" % (ids.dtype, ids.shape))
    import torch
    torch.manual_seed(0)
    import capture_models
    _, expected = capture_models.token_bag()
    if not np.array_equal(ids, expected.numpy()):
        fail("input_ids.npy is not the factory's example input")


def _check_dynamic_t(c, capture):
    out = os.path.join(c.work, capture)
    spec = c.model("transformer_block.py", "make_encoder_block")
    r = c.export_spec(spec, out, "--batch", "2", "--static-batch", "--dynamic-dim", "T=x:1",
                      "--capture", capture, "--reference")
    c.expect_exported(r, "static batch 2, T")
    model = load(os.path.join(out, "model.json"))
    if model["metadata"]["symbols"] != {"T": {"example": 16, "inputs": [[0, 1]]}}:
        fail("metadata.symbols is %s" % model["metadata"]["symbols"])
    x = [n for n in model["nodes"] if n["op"] == "placeholder"]
    if x[0]["meta"]["shape"] != [2, "T", 64]:
        fail("placeholder shape %s, expected [2, 'T', 64]" % x[0]["meta"]["shape"])
    reshapes = [n for n in model["nodes"] if n.get("target") == "reshape"]
    if not reshapes or any(n["kwargs"]["shape"] != [2, -1, 4, 16] or
                           n["meta"]["shape"] != [2, "T", 4, 16] for n in reshapes):
        fail("expected reshapes to [2, -1, 4, 16] of shape [2, T, 4, 16]: %s" % reshapes)
    # graft runs the model at T = 9, as PyTorch does
    import torch
    import transformer_block
    torch.manual_seed(0)
    module = transformer_block.make_encoder_block().eval()
    x9 = torch.randn(2, 9, 64, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        want = module(x9).numpy()
    np.save(os.path.join(out, "x9.npy"), x9.numpy())
    got = c.run_graft(os.path.join(out, "model.json"), {"x": os.path.join(out, "x9.npy")},
                      os.path.join(out, "out9.npz"))
    if got[0].shape != want.shape or not np.allclose(got[0], want, rtol=1e-4, atol=1e-4):
        fail("graft's output at T = 9 differs from PyTorch's (max abs err %g)"
             % float(np.abs(got[0] - want).max()) if got[0].shape == want.shape else
             "graft's output at T = 9 has shape %s" % (got[0].shape,))


def case_dynamic_dim(c):
    for capture in ("fx", "aten"):
        _check_dynamic_t(c, capture)


# ** names and errors **


def case_state_dict_names(c):
    out = os.path.join(c.work, "out")
    r = c.export_spec(c.model("capture_models.py", "tied_weights"), out)
    c.expect_exported(r, "captured with make_fx (ATen)")
    targets = sorted(n["target"] for n in nodes(out, "get_attr"))
    if targets != ["encoder.0.bias", "encoder.0.weight", "scale"]:
        fail("get_attr targets %s" % targets)
    names = safetensors_names(os.path.join(out, "model.safetensors"))
    if names != targets:
        fail("model.safetensors holds %s" % names)
    users = [n for n in nodes(out) if n.get("target") == "linear"]
    if [u["args"][1] for u in users] != [{"node": "encoder_0_weight"}] * 2:
        fail("both linears should read the tied weight encoder.0.weight: %s" % users)


def case_unsupported_op_source_line(c):
    out = os.path.join(c.work, "out")
    r = c.export_spec(c.model("capture_models.py", "spectrum"), out)
    line = source_line(c.capture_models, "z = torch.fft.rfft(y).abs()")
    c.expect_refused(r, "cannot export Spectrum with make_fx (ATen): 1 ATen call cannot be "
                        "converted to graft ops:",
                     "aten._fft_r2c.default (node _fft_r2c): graft has no mapping for this "
                     "ATen op",
                     "at %s:%d in forward: z = torch.fft.rfft(y).abs()"
                     % (c.capture_models, line),
                     "add a row to tools/export/aten_ops.py")
    c.expect_absent(out)


def case_torchvision_frame(c):
    import torchvision
    out = os.path.join(c.work, "out")
    r = c.export_spec("torchvision:shufflenet_v2_x0_5", out, "--capture", "fx")
    vision = torchvision.models.shufflenetv2.__file__
    line = source_line(vision, "batchsize, num_channels, height, width = x.size()")
    c.expect_refused(r, "torch.fx cannot trace ShuffleNetV2",
                     "at %s:%d in channel_shuffle: batchsize, num_channels, height, width = "
                     "x.size()" % (vision, line))
    c.expect_absent(out)


# ** hand-written models that need ops graft lacks **

MISSING = {
    "unet": ("unet.py", "make_unet", ["conv_transpose2d", "group_norm", "interpolate", "pad"],
             "x = F.pad(x, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])"),
}


def check_missing(c, key):
    from export import aten_ops
    file, factory, missing, code = MISSING[key]
    out = os.path.join(c.work, "out")
    r = c.export_spec(c.model(file, factory), out, env=c.registry(without=aten_ops.PROPOSED))
    path = os.path.join(HERE, file)
    one = len(missing) == 1
    c.expect_refused(r, "with make_fx (ATen): ",
                     "graft's registry lacks %s: %s. tools/export/aten_ops.py proposes %s;" % (
                         "this op" if one else "these ops", ", ".join(missing),
                         "its signature" if one else "their signatures"),
                     "at %s:%d in " % (path, source_line(path, code)))
    c.expect_absent(out)


# ** the rows of proposed ops compute what the model computes **

PROPOSED_RUNS = {
    "unet": (("unet.py", "make_unet"), []),
    "lstm": (("lstm_tagger.py", "make_lstm_tagger"), ["--static-batch"]),
    "shufflenet": ("torchvision:shufflenet_v2_x0_5", []),
    # batch 1: the symbolic batch is traced at 2 and 3, and must compute batch 1 right
    "attention": (("capture_models.py", "self_attention"), []),
    # the causal mask's masked_fill(..., -inf), written as "-inf"
    "nanogpt": (("nanogpt.py", "make_gpt"), []),
}


def check_proposed_run(c, key):
    """Exports against a registry with every PROPOSED op and runs the model.json with
    PyTorch (graft_reference.py): the outputs must be PyTorch's."""
    import compare
    import graft_reference
    import torch
    from export import aten_ops
    spec, extra = PROPOSED_RUNS[key]
    spec = c.model(*spec) if isinstance(spec, tuple) else spec
    out = os.path.join(c.work, "out")
    r = c.export_spec(spec, out, "--reference", "--capture", "aten", *extra,
                      env=c.registry(adding=aten_ops.PROPOSED))
    c.expect_exported(r)
    inputs = {name: torch.from_numpy(np.load(os.path.join(out, file)))
              for name, file in load(os.path.join(out, "reference.json"))["inputs"].items()}
    outputs = graft_reference.run(out, inputs)
    npz = os.path.join(out, "reference_run.npz")
    np.savez(npz, **{"output_%d" % i: o.numpy() for i, o in enumerate(outputs)})
    ok, lines = compare.compare(out, npz, 1e-5, 1e-5, "model.json run by PyTorch")
    print("\n".join(lines))
    if not ok:
        fail("the exported graph computes something else than the model")
    return out


def case_nonfinite_fill(c):
    """nanoGPT's causal mask fills -inf: the exporter writes it as the string "-inf"
    (docs/model-format.md), and the graph still computes the model."""
    out = check_proposed_run(c, "nanogpt")
    fills = [n for n in nodes(out) if n.get("target") == "masked_fill"]
    if not fills or any(n.get("kwargs", {}).get("value") != "-inf" for n in fills):
        fail("expected masked_fill nodes filling \"-inf\", got %r" % fills)


def case_class_token_batch(c):
    """The class token's expand to the symbolic batch takes the batch from the tokens: the
    exported graph, run by PyTorch at batch 5, gives the model's outputs at batch 5."""
    import graft_reference
    import torch
    import capture_models
    from export import aten_ops
    out = os.path.join(c.work, "out")
    r = c.export_spec(c.model("capture_models.py", "class_token"), out,
                      env=c.registry(adding=aten_ops.PROPOSED))
    c.expect_exported(r, "batch N")
    if not [n for n in nodes(out) if n.get("target") == "expand_as"]:
        fail("expected an expand_as of the class token")
    torch.manual_seed(0)
    module, _ = capture_models.class_token()
    x = torch.randn(5, 4, 8)
    with torch.no_grad():
        want = module.eval()(x)
    got = graft_reference.run(out, {"x": x})[0]
    if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-5, atol=1e-6):
        fail("the exported graph at batch 5 differs from the model")


CASES = {
    "auto-picks-fx": case_auto_picks_fx,
    "auto-picks-aten": case_auto_picks_aten,
    "int64-input-factory": case_int64_input_factory,
    "dynamic-dim": case_dynamic_dim,
    "state-dict-names": case_state_dict_names,
    "unsupported-op-source-line": case_unsupported_op_source_line,
    "torchvision-frame": case_torchvision_frame,
    "class-token-batch": case_class_token_batch,
    "nonfinite-fill": case_nonfinite_fill,
}
for _key in MISSING:
    CASES["missing-ops-" + _key] = (lambda key: lambda c: check_missing(c, key))(_key)
for _key in PROPOSED_RUNS:
    CASES["proposed-ops-" + _key] = (lambda key: lambda c: check_proposed_run(c, key))(_key)


def main():
    source_dir, work, rewrite, case = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CASES[case](AtenCase(source_dir, work, rewrite))
    print("aten_test.py: %s: ok" % case)


if __name__ == "__main__":
    main()
