"""Shared fixtures of the Python module's tests: the repository's files and scratch folders.
ctest runs these with PYTHONPATH set to the build tree's python/ (tests/python/CMakeLists.txt)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("GRAFT_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def source_dir() -> pathlib.Path:
    return SOURCE_DIR


@pytest.fixture
def tiny_cnn() -> pathlib.Path:
    return SOURCE_DIR / "examples" / "models" / "tiny_cnn" / "model.json"


@pytest.fixture
def fuse_rules() -> pathlib.Path:
    return SOURCE_DIR / "examples" / "rules" / "fuse.rules"
