#!/usr/bin/env python3
"""Fills CORPUS_DIR/<target>/ with seed inputs for the fuzz targets, from the repository and
from fuzz/hostile_seeds.py (near-misses of each class of hostile input graft must reject):

  rules        rules/, examples/rules/, tests/*/data/*.rules, fuzz/seeds/rules/, and the rule
               snippets (C++ raw strings) of tests/dsl, tests/engine/{match,rewrite}
               and tests/ruletest
  model_json   examples/models/*/model.json, tests/cli/data/*.json, fuzz/seeds/model_json/, and
               the JSON raw strings of tests/engine/io/model_json_test.cpp
  safetensors  examples/models/*/*.safetensors, fuzz/seeds/safetensors/, and the headers (C++
               raw strings) of tests/engine/io/safetensors*_test.cpp with the data they need
  npy          fuzz/seeds/npy/ and the header dicts of tests/eval/npy_test.cpp with the
               data their shapes need
  rewrite      fuzz/seeds/rewrite/ and tests/fuzz_regressions/rewrite/ (recipes are opaque
               bytes; the fuzzer grows them)
  compile      fuzz/seeds/compile/, the rewrite recipes behind each option byte, and the
               model_json seeds (an input starting with '{' is model.json text)

Files are named by content hash, as libFuzzer names its own, so re-seeding never duplicates.
Usage: fuzz/seed_corpus.py CORPUS_DIR [TARGET...]
"""
import glob
import hashlib
import json
import os
import re
import sys

import hostile_seeds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["rules", "model_json", "safetensors", "rewrite", "npy", "compile"]
RAW_STRING = re.compile(r'R"([^(\s]*)\((.*?)\)\1"', re.S)
# Adjacent C++ string literals ("a" "b" is one string), without escapes beyond \\ and \".
STRING_LITERALS = re.compile(r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
MAX_SEED_DATA = 4096  # bytes of tensor data a seed built from a test's header may carry


def files(*patterns):
    for pattern in patterns:
        yield from sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))


def raw_strings(patterns, keep):
    """The C++ raw string literals of the files matching `patterns` that `keep` accepts."""
    for path in files(*patterns):
        with open(path, encoding="utf-8") as f:
            for match in RAW_STRING.finditer(f.read()):
                text = match.group(2)
                if keep(text):
                    yield text.encode()


def read(*patterns):
    for path in files(*patterns):
        with open(path, "rb") as f:
            yield f.read()


def data_size(shape, item):
    """Bytes of a tensor of `shape`, or 16 when that is more than MAX_SEED_DATA."""
    count = 1
    for d in shape:
        count *= d
    return count * item if 0 <= count * item <= MAX_SEED_DATA else 16


def safetensors_from_tests():
    """The tests' headers (whole ones, and single entries as tensor "w") with their data."""
    for text in raw_strings(["tests/engine/io/safetensors*_test.cpp"], lambda t: t.startswith("{")):
        try:
            header = json.loads(text)
        except ValueError:
            continue
        if isinstance(header, dict) and "dtype" in header:
            header = {"w": header}
        if not isinstance(header, dict):
            continue
        ends = [e["data_offsets"][1] for e in header.values()
                if isinstance(e, dict) and isinstance(e.get("data_offsets"), list)
                and len(e["data_offsets"]) == 2 and isinstance(e["data_offsets"][1], int)]
        end = max(ends, default=0)
        data = bytes(end if 0 <= end <= MAX_SEED_DATA else 16)
        yield hostile_seeds.safetensors_file(header, data)


def npy_from_tests():
    """The header dicts in tests/eval/npy_test.cpp, each with the data its shape needs."""
    for path in files("tests/eval/npy_test.cpp"):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        for match in STRING_LITERALS.finditer(source):
            text = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', match.group(1)))
            if not text.startswith("{'descr'"):
                continue
            dims = re.search(r"'shape': \(([0-9, ]*)\)", text)
            shape = [int(d) for d in dims.group(1).split(",") if d.strip()] if dims else []
            item = 8 if "'<f8'" in text else 4
            yield hostile_seeds.npy_file(text, bytes(data_size(shape, item)))


def seeds(target):
    if target == "rules":
        yield from read("rules/*.rules", "examples/rules/*.rules", "tests/*/data/*.rules",
                        "fuzz/seeds/rules/*")
        yield from raw_strings(["tests/dsl/*.cpp", "tests/engine/match/*.cpp",
                                "tests/engine/rewrite/*.cpp", "tests/ruletest/*.cpp"],
                               lambda t: re.search(r"\b(rule|test|phase|import)\b", t))
    elif target == "model_json":
        yield from read("examples/models/*/model.json", "tests/cli/data/*.json",
                        "fuzz/seeds/model_json/*")
        yield from raw_strings(["tests/engine/io/model_json_test.cpp"],
                               lambda t: t.lstrip().startswith("{"))
    elif target == "safetensors":
        yield from read("examples/models/*/*.safetensors", "fuzz/seeds/safetensors/*")
        yield from safetensors_from_tests()
    elif target == "npy":
        yield from read("fuzz/seeds/npy/*")
        yield from npy_from_tests()
    elif target == "rewrite":
        yield from read("fuzz/seeds/rewrite/*", "tests/fuzz_regressions/rewrite/*")
    elif target == "compile":
        yield from read("fuzz/seeds/compile/*")
        for recipe in read("fuzz/seeds/rewrite/*", "tests/fuzz_regressions/rewrite/*"):
            for options in (0x00, 0x0f, 0x15, 0x2a):
                yield bytes([options]) + recipe
        for text in seeds("model_json"):
            if text.startswith(b"{"):
                yield text
    else:
        sys.exit(f"seed_corpus: unknown target '{target}'")
    yield from hostile_seeds.SEEDS[target]()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    corpus = sys.argv[1]
    targets = sys.argv[2:] or TARGETS
    for target in targets:
        out = os.path.join(corpus, target)
        os.makedirs(out, exist_ok=True)
        count = 0
        for data in seeds(target):
            with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
                f.write(data)
            count += 1
        print(f"seed_corpus: {target}: {count} seeds in {out}")


if __name__ == "__main__":
    main()
