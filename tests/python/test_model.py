"""graft.Model: loading, reading the graph, saving, and the errors of bad models."""
import json

import pytest

import graft


def test_a_model_reads_as_torch_fx_names_its_parts(tiny_cnn):
    model = graft.load(tiny_cnn)
    nodes = model.nodes
    assert len(model) == len(nodes) == 42
    assert [i.name for i in model.inputs] == ["x"]
    assert model.inputs[0].shape == ("N", 3, 32, 32)
    assert model.inputs[0].dtype == "float32"
    conv = next(n for n in nodes if n.name == "stem_conv")
    assert conv.op == "call_function"
    assert conv.target == "conv2d"
    assert conv.args == ("x", "stem_conv_weight", None)
    assert conv.kwargs["stride"] == [1, 1]
    assert conv.kwargs["groups"] == 1
    assert conv.shape == ("N", 16, 32, 32)
    weight = next(n for n in nodes if n.name == "stem_conv_weight")
    assert (weight.op, weight.target) == ("get_attr", "stem.conv.weight")
    assert model.op_counts()["conv2d"] == 4
    assert model.metadata["seed"] == 20261123
    assert "stem_conv" in model.table()
    assert model.dot(title="tiny").startswith("digraph")
    assert "42 nodes" in repr(model)


def test_a_saved_model_loads_back_with_the_same_graph(tiny_cnn, tmp_path):
    model = graft.load(tiny_cnn)
    out = tmp_path / "copy.json"
    model.save(out)
    again = graft.load(out)
    assert again.nodes == model.nodes
    assert json.loads(out.read_text())["format"] == "graft.model"


def test_a_bad_model_raises_model_error_with_its_json_pointer(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "graft.model", "version": 1, "nodes": [{"name": "x"}]}')
    with pytest.raises(graft.ModelError) as error:
        graft.load(bad)
    assert "bad.json: /nodes/0" in str(error.value)
    assert isinstance(error.value, graft.GraftError)


def test_a_missing_file_raises_model_error(tmp_path):
    with pytest.raises(graft.ModelError, match="nothing.json"):
        graft.load(tmp_path / "nothing.json")
