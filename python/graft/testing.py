"""Rule tests from pytest: a file's `test` blocks and `rewrite verify` of its rules, failing
with the report the CLI prints.

    def test_my_rules():
        graft.testing.assert_tests_pass("my.rules")
        graft.testing.assert_verified("my.rules")
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Sequence, Union

from graft import _graft

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class TestOutcome:
    """One `test` block: passed or not, and the report `rewrite test` prints for it."""
    name: str
    location: str
    passed: bool
    report: str


@dataclass(frozen=True)
class VerifyOutcome:
    """One rule under `rewrite verify`: verdict "pass", "fail" or "skip", with its report."""
    rule: str
    location: str
    verdict: str
    checked: int
    report: str


def run_tests(path: PathLike, filter: str = "", seed: int = 0,  # noqa: A002 (the CLI's name)
              allow_paths: Sequence[PathLike] = ()) -> List[TestOutcome]:
    """The outcome of each `test` block of `path` (not of its imports)."""
    return [TestOutcome(**d) for d in _graft.run_tests(
        os.fspath(path), filter, seed, [os.fspath(p) for p in allow_paths])]


def verify(path: PathLike, filter: str = "", seed: int = 0, graphs: int = 8,  # noqa: A002
           trials: int = 2, rtol: float = 1e-4, atol: float = 1e-5,
           allow_paths: Sequence[PathLike] = ()) -> List[VerifyOutcome]:
    """`rewrite verify` of each rule of `path` (not of its imports)."""
    return [VerifyOutcome(**d) for d in _graft.verify(
        os.fspath(path), filter, seed, graphs, trials, rtol, atol,
        [os.fspath(p) for p in allow_paths])]


def assert_tests_pass(path: PathLike, **options) -> List[TestOutcome]:
    """Runs the tests of `path`; raises AssertionError with every failure's report."""
    outcomes = run_tests(path, **options)
    failed = [o for o in outcomes if not o.passed]
    if failed:
        raise AssertionError(f"{len(failed)} of {len(outcomes)} tests of {os.fspath(path)} failed:\n"
                             + "".join(o.report for o in failed))
    if not outcomes:
        raise AssertionError(f"{os.fspath(path)} has no test"
                             + (f" matching '{options['filter']}'" if options.get("filter") else ""))
    return outcomes


def assert_verified(path: PathLike, allow_skip: bool = False, **options) -> List[VerifyOutcome]:
    """Verifies the rules of `path`; raises AssertionError with each failing rule's report
    and each skipped one's (a rule that could not be checked), unless allow_skip, as
    `rewrite verify --allow-skip`."""
    outcomes = verify(path, **options)
    bad = [o for o in outcomes if o.verdict == "fail" or (o.verdict == "skip" and not allow_skip)]
    if bad:
        raise AssertionError(f"{len(bad)} of {len(outcomes)} rules of {os.fspath(path)} not verified:\n"
                             + "".join(o.report for o in bad))
    return outcomes
