"""graft.testing: rule tests and verify from pytest, failing with the CLI's report."""
import pytest

import graft.testing


def test_the_tests_of_a_rule_file_pass_and_report(source_dir):
    outcomes = graft.testing.assert_tests_pass(source_dir / "examples" / "rules" / "fuse.rules")
    assert outcomes and all(o.passed for o in outcomes)
    assert all(o.report.startswith("PASS") for o in outcomes)


def test_a_failing_test_fails_with_its_report(tmp_path):
    rules = tmp_path / "wrong.rules"
    rules.write_text(
        "rule relu6_to_relu {\n"
        "  pattern(x) { return relu6(x) }\n"
        "  replacement { return relu(x) }\n"
        "}\n"
        "test big_inputs {\n"
        "  graph(x: f32[4]) { return relu6(x * 100.0) }\n"
        "  apply relu6_to_relu\n"
        "  expect equivalent()\n"
        "}\n")
    outcomes = graft.testing.run_tests(rules)
    assert [o.passed for o in outcomes] == [False]
    with pytest.raises(AssertionError) as error:
        graft.testing.assert_tests_pass(rules)
    assert "FAIL" in str(error.value)
    assert "big_inputs" in str(error.value)


def test_verify_passes_right_rules_and_fails_wrong_ones(source_dir, tmp_path):
    outcomes = graft.testing.assert_verified(source_dir / "examples" / "rules" / "fuse.rules")
    assert any(o.verdict == "pass" for o in outcomes)
    wrong = tmp_path / "wrong.rules"
    wrong.write_text("rule neg_to_id {\n  pattern(x) { return neg(x) }\n"
                     "  replacement { return x }\n}\n")
    (outcome,) = graft.testing.verify(wrong)
    assert outcome.verdict == "fail"
    with pytest.raises(AssertionError, match="neg_to_id"):
        graft.testing.assert_verified(wrong)


def test_a_rule_file_that_does_not_check_raises_rules_error(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("rule {")
    with pytest.raises(graft.RulesError, match="bad.rules:1:"):
        graft.testing.run_tests(bad)
