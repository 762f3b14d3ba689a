"""to_graph_module(rewrite(export(m))) for the models of the conformance suite (tests/models):
it must compute what m computes on the same weights and inputs (error relative to the output's
largest magnitude, batch-norm statistics randomised), and TorchScript must accept it, scripted
and traced."""
import os

import pytest

torch = pytest.importorskip("torch")
import graft  # noqa: E402
import graft.fx  # noqa: E402
import graft.torch  # noqa: E402
from graft.exporter import flatten_outputs, models  # noqa: E402

MODELS = os.path.join(os.environ.get("GRAFT_SOURCE_DIR", os.path.join(
    os.path.dirname(__file__), "..", "..")), "tests", "models")

# The conformance suite's fast models (tests/models/CMakeLists.txt), each with its capture.
SPECS = [
    ("torchvision:resnet18", "auto", 1),
    ("torchvision:mobilenet_v2", "auto", 1),
    (os.path.join(MODELS, "transformer_block.py") + ":make_encoder_block", "auto", 2),
    (os.path.join(MODELS, "op_zoo.py") + ":make_op_zoo", "auto", 2),
    (os.path.join(MODELS, "op_zoo.py") + ":make_op_zoo", "aten", 2),
    (os.path.join(MODELS, "capture_models.py") + ":channel_shuffle", "auto", 2),
    (os.path.join(MODELS, "capture_models.py") + ":moments", "aten", 1),
    (os.path.join(MODELS, "handwritten_block.py") + ":make_handwritten_block", "auto", 2),
    # issue #27's models as their ops land: conv1d, interpolate (torch.fx and ATen paths)
    (os.path.join(MODELS, "audio_cnn.py") + ":make_audio_cnn", "auto", 2),
    (os.path.join(MODELS, "resample_models.py") + ":make_resample", "fx", 2),
    ("torchvision:lraspp_mobilenet_v3_large", "auto", 1),
    # int64 token inputs, slices, embeddings and -inf masks
    ("torchvision:shufflenet_v2_x1_0", "auto", 1),
    (os.path.join(MODELS, "nanogpt.py") + ":make_gpt", "aten", 1),
    (os.path.join(MODELS, "bert_encoder.py") + ":make_bert", "aten", 1),
    (os.path.join(MODELS, "lstm_tagger.py") + ":make_lstm_tagger", "aten", 1),
    (os.path.join(MODELS, "decoder_block.py") + ":make_decoder_block", "fx", 2),
    (os.path.join(MODELS, "decoder_block.py") + ":make_decoder_block", "aten", 2),
    (os.path.join(MODELS, "unet.py") + ":make_unet", "auto", 1),
    (os.path.join(MODELS, "pad_pool3d_models.py") + ":make_pad_pool3d", "fx", 1),
    (os.path.join(MODELS, "pad_pool3d_models.py") + ":make_pad_pool3d_aten", "aten", 1),
]


def example(spec, batch):
    built = models.build(spec, seed=0)
    module = built.module.eval()
    models.randomize_norm_stats(module, 0)
    if built.inputs is not None:
        return module, built.inputs
    shapes = built.shapes or [(3, 64, 64)]
    return module, models.example_inputs(shapes, batch, 0)


@pytest.mark.parametrize("spec,capture,batch", SPECS,
                         ids=[f"{os.path.basename(s)}-{c}" for s, c, _ in SPECS])
def test_the_rewritten_model_back_in_torch_fx_computes_the_model(spec, capture, batch):
    module, inputs = example(spec, batch)
    rules = graft.Rules.load(graft.torch.standard_rules_path())
    # the tagger's LSTM state has no symbolic batch (tests/models: --static-batch)
    dynamic = "lstm_tagger" not in spec
    fused = graft.fx.export(module, inputs, capture=capture,
                            dynamic_batch=dynamic).rewrite(rules).model
    gm = graft.fx.to_graph_module(fused)
    with torch.no_grad():
        wants = flatten_outputs(module(*inputs))
        for run in (gm, torch.jit.script(gm), torch.jit.trace(gm, tuple(inputs))):
            got = run(*inputs)
            gots = list(got) if isinstance(got, (tuple, list)) else [got]
            assert len(gots) == len(wants)
            for g, w in zip(gots, wants):
                scale = float(w.abs().max())
                assert float((g - w).abs().max()) <= 1e-4 * max(scale, 1e-30)
