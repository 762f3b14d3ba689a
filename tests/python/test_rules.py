"""graft.Rules and Model.rewrite: the same rewrites as `rewrite --rules`, errors located."""
import pytest

import graft


def test_rewriting_fuses_and_leaves_the_original_model_alone(tiny_cnn, fuse_rules):
    model = graft.load(tiny_cnn)
    rules = graft.Rules.load(fuse_rules)
    assert "fuse_conv_bn" in rules.rule_names
    result = model.rewrite(rules, stats=True)
    assert model.op_counts()["batch_norm"] == 4  # unchanged
    assert "batch_norm" not in result.model.op_counts()
    assert ("fuse_conv_bn", "stem_bn") in result.applied
    assert result.stats["fuse_conv_bn"]["applied"] == 4
    assert result.stats["fuse_conv_bn"]["candidates"] >= 4
    assert len(result.model) < len(model)


def test_a_rewritten_model_computes_what_the_original_does(tiny_cnn, fuse_rules):
    import numpy as np
    model = graft.load(tiny_cnn)
    fused = model.rewrite(graft.Rules.load(fuse_rules)).model
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32)
    want = graft.compile(model)(x)
    got = graft.compile(fused)(x)
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()


def test_rules_that_do_not_check_raise_rules_error_with_file_line_col(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("rule r {\n  pattern(x) { return relu(x) }\n  replacement { return reluu(x) }\n}\n")
    with pytest.raises(graft.RulesError) as error:
        graft.Rules.load(bad)
    assert "bad.rules:3:" in str(error.value)
    assert "reluu" in str(error.value)


def test_explain_says_why_a_rule_does_not_match(tiny_cnn, fuse_rules):
    model = graft.load(tiny_cnn)
    rules = graft.Rules.load(fuse_rules)
    matched, reason = model.explain(rules, "fuse_conv_bn", "stem_bn")
    assert matched
    matched, reason = model.explain(rules, "fuse_conv_bn", "stem_conv")
    assert not matched
    assert reason
    with pytest.raises(graft.RewriteError, match="no_such_rule"):
        model.explain(rules, "no_such_rule", "stem_bn")
    result = model.rewrite(rules, explain="fuse_conv_bn@stem_bn")
    applied, text = result.explanation
    assert applied
    assert "fuse_conv_bn@stem_bn in phase" in text
    assert text.splitlines()[-1].startswith("fuse_conv_bn@stem_bn: applied in phase")
    applied, text = model.rewrite(rules, explain="fuse_conv_bn@stem_conv").explanation
    assert not applied
    assert "no match" in text
    assert "batch_norm" not in result.model.op_counts()
