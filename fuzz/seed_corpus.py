#!/usr/bin/env python3
"""Fills CORPUS_DIR/<target>/ with seed inputs for the fuzz targets, from the repository:

  rules        rules/, examples/rules/, tests/*/data/*.rules, fuzz/seeds/rules/, and the rule
               snippets (C++ raw strings) of tests/dsl, tests/engine/{match,rewrite}
               and tests/ruletest
  model_json   examples/models/*/model.json, tests/cli/data/*.json, fuzz/seeds/model_json/, and
               the JSON raw strings of tests/engine/io/model_json_test.cpp
  safetensors  examples/models/*/*.safetensors, fuzz/seeds/safetensors/
  rewrite      fuzz/seeds/rewrite/ (recipes are opaque bytes; the fuzzer grows them)

Files are named by content hash, as libFuzzer names its own, so re-seeding never duplicates.
Usage: fuzz/seed_corpus.py CORPUS_DIR [TARGET...]
"""
import glob
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAW_STRING = re.compile(r'R"([^(\s]*)\((.*?)\)\1"', re.S)


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


def seeds(target):
    if target == "rules":
        for path in files("rules/*.rules", "examples/rules/*.rules", "tests/*/data/*.rules",
                          "fuzz/seeds/rules/*"):
            yield open(path, "rb").read()
        yield from raw_strings(["tests/dsl/*.cpp", "tests/engine/match/*.cpp",
                                "tests/engine/rewrite/*.cpp", "tests/ruletest/*.cpp"],
                               lambda t: re.search(r"\b(rule|test|phase|import)\b", t))
    elif target == "model_json":
        for path in files("examples/models/*/model.json", "tests/cli/data/*.json",
                          "fuzz/seeds/model_json/*"):
            yield open(path, "rb").read()
        yield from raw_strings(["tests/engine/io/model_json_test.cpp"],
                               lambda t: t.lstrip().startswith("{"))
    elif target == "safetensors":
        for path in files("examples/models/*/*.safetensors", "fuzz/seeds/safetensors/*"):
            yield open(path, "rb").read()
    elif target == "rewrite":
        for path in files("fuzz/seeds/rewrite/*"):
            yield open(path, "rb").read()
    else:
        sys.exit(f"seed_corpus: unknown target '{target}'")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    corpus = sys.argv[1]
    targets = sys.argv[2:] or ["rules", "model_json", "safetensors", "rewrite"]
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
