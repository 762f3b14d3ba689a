"""Seeds of the classes of hostile input graft must reject cleanly, one generator per fuzz target
(fuzz/seed_corpus.py adds them to the seeds taken from the tests): huge declared shapes and
element counts that overflow, duplicate keys, NUL bytes, trailing bytes and holes, 0x0 kernels
and huge paddings, escape sequences in names, deep nesting, absolute and '..' paths, long
commutative add chains. Each seed is a near-miss of a valid input, so the fuzzer starts next
to the checks that guard these classes.
"""
import json
import struct

ESC = "\x1b[2J\x1b[31m"
INT64_MAX = 2**63 - 1


# ** model.json **

def model(nodes=None, tensors=None, weights=None, shape=("N", 3, 8, 8), **top):
    """A small valid model (conv2d with an inline weight, relu), or one with the given parts."""
    doc = {"format": "graft.model", "version": 1}
    if weights is not None:
        doc["weights"] = weights
    doc["tensors"] = tensors if tensors is not None else {
        "w": {"dtype": "float32", "shape": [4, 3, 3, 3], "data": [0.01 * i for i in range(108)]}}
    doc["nodes"] = nodes if nodes is not None else conv_nodes()
    for key, value in top.items():
        doc[key] = value
    if shape is not None and nodes is None:
        doc["nodes"][0]["meta"]["shape"] = list(shape)
    return doc


def conv_nodes(**conv_kwargs):
    return [
        {"name": "x", "op": "placeholder", "target": "x",
         "meta": {"shape": ["N", 3, 8, 8], "dtype": "float32"}},
        {"name": "w", "op": "get_attr", "target": "w"},
        {"name": "conv", "op": "call_function", "target": "conv2d",
         "args": [{"node": "x"}, {"node": "w"}, None],
         "kwargs": conv_kwargs or {"padding": [1, 1]}},
        {"name": "relu", "op": "call_function", "target": "relu", "args": [{"node": "conv"}]},
        {"name": "output", "op": "output", "target": "output", "args": [[{"node": "relu"}]]},
    ]


def dumps(doc):
    return json.dumps(doc).encode()


def nested(depth, leaf="0"):
    return "[" * depth + leaf + "]" * depth


def model_json():
    base = dumps(model())
    yield base
    # Huge declared shapes and element counts that overflow int64.
    for shape in ([1 << 40, 1 << 20, 1, 1], [1 << 62, 4, 1, 1], [INT64_MAX, 3, 8, 8],
                  [-5, 3, 8, 8], [1] * 65, ["N", 3, 1 << 31, 1 << 31], [0, 3, 8, 8]):
        yield dumps(model(shape=shape))
    yield dumps(model(tensors={"w": {"dtype": "float32", "shape": [1 << 62, 4], "data": []}}))
    # 0x0 kernels, huge paddings, zero or huge strides, dilations and groups.
    zero_kernel = {"w": {"dtype": "float32", "shape": [4, 3, 0, 0], "data": []}}
    yield dumps(model(tensors=zero_kernel))
    for kwargs in ({"padding": [INT64_MAX, INT64_MAX]}, {"padding": [1 << 40, 0]},
                   {"stride": [0, 1]}, {"stride": [INT64_MAX, 1]}, {"dilation": [1 << 40, 1]},
                   {"groups": 0}, {"groups": 3}, {"padding": [-1, -1]}):
        yield dumps(model(nodes=conv_nodes(**kwargs)))
    # Scalars a save cannot hold; the name safetensors reserves.
    for value in (2**64 - 1, -2**63, 2**53 + 1, 1e308):
        nodes = conv_nodes()
        nodes[3] = {"name": "relu", "op": "call_function", "target": "mul",
                    "args": [{"node": "conv"}, value]}
        yield dumps(model(nodes=nodes))
    yield dumps(model(tensors={"__metadata__": {"dtype": "float32", "shape": [1], "data": [1]},
                               **model()["tensors"]}))
    # Duplicate keys: top level, in a node, in 'target', in tensors.
    text = base.decode()
    yield text.replace('"version": 1', '"version": 1, "version": 1').encode()
    yield text.replace('"target": "relu"', '"target": "relu", "target": "sigmoid"').encode()
    yield text.replace('"name": "w",', '"name": "w", "name": "v",').encode()
    yield text.replace('"tensors": {', '"tensors": {"w": {"dtype": "float32", "shape": [1], '
                                         '"data": [1]}, ').encode()
    # NUL bytes: after the document, inside a string (raw and escaped).
    yield base + b"\0{\"junk\": 1}"
    yield base.replace(b'"relu", "args"', b'"re\0lu", "args"')
    yield text.replace('"target": "x"', '"target": "x\\u0000y"').encode()
    yield base + b" {}"
    # Escape sequences and invalid text in names, targets, keys and weights paths.
    yield text.replace('"relu"}', '"relu%s"}' % json.dumps(ESC)[1:-1]).replace(
        '"name": "relu"', '"name": "relu%s"' % json.dumps(ESC)[1:-1]).encode()
    yield text.replace('"target": "relu"', '"target": "relu%s"' % json.dumps(ESC)[1:-1]).encode()
    yield dumps(model(nodes=conv_nodes(**{"padding\x1b[5m": 1})))
    yield base.replace(b'"name": "relu"', b'"name": "\xff\xfe\x1b"')
    yield text.replace('"x"', '"\\ud800"', 1).encode()
    # Weights outside the folder, cut by a NUL, odd names.
    for weights in ("/etc/passwd", "../model.safetensors", "model.safetensors\0.txt",
                    "sub/../model.safetensors", "", ".", "model.safetensors" + ESC,
                    "model.safetensors"):
        yield dumps(model(weights=weights))
    # Deep nesting: just below and above the 256-level limit, in metadata and in weights.
    yield dumps(model(metadata={"k": json.loads(nested(250))}))
    yield text.replace('"version": 1', '"version": 1, "metadata": %s' % nested(300)).encode()
    yield text.replace('"version": 1', '"version": 1, "weights": %s' % nested(5000)).encode()
    # Number literals beyond double range.
    yield text.replace('"version": 1', '"version": 1e400').encode()
    yield text.replace('0.01', '1e400', 1).encode()


# ** safetensors **

def safetensors_file(header, data=b"", raw_header=None, length=None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def entry(offsets, shape=(2,), dtype="F32"):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


def safetensors():
    two = {"a": entry([0, 16], [2, 2]), "b": entry([16, 28], [3])}
    yield safetensors_file(two, bytes(28))
    yield safetensors_file({"__metadata__": {"k": "v"}, **two}, bytes(28))
    # Header lengths: beyond the file, beyond the 100 MB limit, zero, 2^64 - 1.
    for length in (1 << 20, 100_000_001, 0, 2**64 - 1):
        yield safetensors_file(two, bytes(28), length=length)
    # Huge declared shapes, overflowing element counts, negative and 65 dims.
    for shape in ([1 << 40, 1 << 30], [1 << 62, 8], [INT64_MAX, 2], [-1, 4], [1] * 65,
                  [0, 1 << 62]):
        yield safetensors_file({"a": entry([0, 16], shape)}, bytes(16))
    # Trailing bytes, holes, overlaps, reversed and out-of-range offsets.
    yield safetensors_file(two, bytes(28 + 5))
    yield safetensors_file({"a": entry([0, 16], [2, 2]), "b": entry([20, 32], [3])}, bytes(32))
    yield safetensors_file({"a": entry([0, 16], [2, 2]), "b": entry([8, 20], [3])}, bytes(20))
    yield safetensors_file({"a": entry([16, 0], [2, 2])}, bytes(16))
    yield safetensors_file({"a": entry([0, 2**64 - 1], [2, 2])}, bytes(16))
    yield safetensors_file({"a": entry([2**63, 2**63 + 16], [2, 2])}, bytes(16))
    # Duplicate keys: a tensor name, __metadata__, a key inside an entry.
    a = json.dumps(entry([0, 16], [2, 2]))
    yield safetensors_file(None, bytes(16), raw_header=('{"a": %s, "a": %s}' % (a, a)).encode())
    yield safetensors_file(None, bytes(16), raw_header=(
        '{"__metadata__": {}, "__metadata__": {}, "a": %s}' % a).encode())
    yield safetensors_file(None, bytes(16), raw_header=(
        b'{"a": {"dtype": "F32", "dtype": "F64", "shape": [2, 2], "data_offsets": [0, 16]}}'))
    yield safetensors_file(None, bytes(16), raw_header=('{"__metadata__": {"k": "a", "k": "b"}, '
                                                        '"a": %s}' % a).encode())
    # NUL bytes and escape sequences in names and metadata; invalid UTF-8.
    yield safetensors_file(None, bytes(16), raw_header=('{"a": %s}\0garbage' % a).encode())
    yield safetensors_file(None, bytes(16), raw_header=('{"a\0b": %s}' % a).encode())
    yield safetensors_file({"a" + ESC: entry([0, 16], [2, 2]), "__metadata__": {ESC: ESC}},
                           bytes(16))
    yield safetensors_file(None, bytes(16), raw_header=b'{"\xff\xfe": ' + a.encode() + b"}")
    # Deep nesting in metadata; values of the wrong kind.
    yield safetensors_file(None, bytes(16), raw_header=(
        '{"__metadata__": {"k": %s}, "a": %s}' % (nested(300), a)).encode())
    yield safetensors_file({"__metadata__": {"k": 1}, "a": entry([0, 16], [2, 2])}, bytes(16))
    yield safetensors_file({"a": {"dtype": "F32", "shape": "2", "data_offsets": [0, 16]}},
                           bytes(16))
    for dtype in ("F16", "BF16", "I64", "BOOL", "U8", "F8_E4M3", "F128", ""):
        yield safetensors_file({"a": entry([0, 16], [2, 2], dtype)}, bytes(16))
    yield safetensors_file({"a": entry([5, 5], [0])}, bytes(5))
    yield safetensors_file(None, b"", raw_header=b"[]")


# ** .npy **

def npy_file(header, data=b"", version=1, length=None):
    text = header.encode() if isinstance(header, str) else header
    prefix = 10 if version == 1 else 12
    text += b" " * (-(prefix + len(text) + 1) % 64) + b"\n"
    size = len(text) if length is None else length
    size_bytes = struct.pack("<H", size) if version == 1 else struct.pack("<I", size)
    return b"\x93NUMPY" + bytes([version, 0]) + size_bytes + text + data


def npy_dict(shape="(2, 3)", descr="'<f4'", order="False", extra=""):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, %s}" % (descr, order, shape, extra)


def npy():
    yield npy_file(npy_dict(), bytes(24))
    yield npy_file(npy_dict("(3,)", "'<f8'"), struct.pack("<3d", 1e300, -1e-300, float("nan")))
    yield npy_file(npy_dict("()"), bytes(4))
    yield npy_file(npy_dict("(0,)"), b"")
    yield npy_file(npy_dict("(0, 100000000000000)"), b"")
    # Huge declared shapes, element counts that overflow, dims too long or negative.
    for shape in ("(1, 3, 20000, 16000)", "(4611686018427387904, 4)",
                  "(999999999999999, 999999999999999)", "(9999999999999999,)", "(-1,)",
                  "(2, -3)", "(" + "2, " * 64 + ")", "(2, 3"):
        yield npy_file(npy_dict(shape), bytes(16))
    # Duplicate keys (numpy's literal_eval keeps the last), keys inside strings.
    yield npy_file(npy_dict(extra="'descr': '<f8', "), bytes(24))
    yield npy_file(npy_dict(extra="'shape': (3,), "), bytes(24))
    yield npy_file("{'x': 'shape', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                   bytes(4))
    # Header lengths beyond the file and the limit; versions; magic.
    yield npy_file(npy_dict(), bytes(24), length=60000)
    yield npy_file(npy_dict(), bytes(24), version=2, length=2**32 - 1)
    yield npy_file(npy_dict(), bytes(24), version=3)
    yield npy_file(npy_dict(), bytes(24), version=0)
    yield npy_file(npy_dict(), bytes(24))[:9]
    yield b"\x93NUMPZ" + npy_file(npy_dict(), bytes(24))[6:]
    # Trailing bytes, truncated data; NUL bytes and escape sequences in the header.
    yield npy_file(npy_dict(), bytes(24 + 3))
    yield npy_file(npy_dict(), bytes(23))
    yield npy_file(npy_dict().replace("'descr'", "'de\0scr'"), bytes(24))
    yield npy_file(npy_dict() + "\0garbage", bytes(24))
    yield npy_file(npy_dict(descr="'" + ESC + "'"), bytes(24))
    yield npy_file(npy_dict(extra="'k': '\xff', ").encode("latin-1"), bytes(24))
    # Orders and dtypes graft does not read; deep nesting; a header of 65 535 bytes.
    yield npy_file(npy_dict(order="True"), bytes(24))
    for descr in ("'>f4'", "'<i8'", "'|b1'", "'<f2'", "'<f4", "[('a', '<f4')]", "'<c8'"):
        yield npy_file(npy_dict(descr=descr), bytes(24))
    yield npy_file(npy_dict(shape="(" * 300 + "1," + ")" * 300), bytes(4))
    yield npy_file(npy_dict(extra="'pad': '%s', " % ("x" * 65400)), bytes(24), version=2)


# ** graph recipes (fuzz/graph_recipe.h) **

def add_chain_recipe(steps=24):
    """Two float32 [1, 8] inputs, then `steps` adds each reading the newest value and an
    earlier one: a long commutative chain for the matcher's binder."""
    placeholders = bytes([1, 0, 1, 4, 3, 0, 1, 4, 3])
    # binary step: pick(13)=2, newest value, op 'add', other = value(), an earlier value
    # (byte >= 128), no swap, alpha 1.
    return placeholders + b"".join(bytes([2, 0, 0, 1, 128 + i, 0, 0]) for i in range(steps))


def recipes():
    yield add_chain_recipe()
    yield bytes(200)                # every choice the first: long relu chains
    yield b"\xff" * 200             # every choice the last
    yield bytes(range(256))


def rewrite():
    yield from recipes()


def compile_inputs():
    """An option byte before each recipe: all 16 option combinations, batch sizes 1 to 4.
    (The model_json seeds are the compile target's other half; fuzz/seed_corpus.py adds them.)"""
    for i, recipe in enumerate(recipes()):
        for options in range(16):
            yield bytes([options | (i % 4) << 4]) + recipe


# ** .rules (NUL bytes split one input into main.rules, a.rules, b.rules, c.rules) **

def rule(name, pattern, replacement="x", params="x", where=""):
    return ("rule %s {\n  pattern(%s) { return %s }\n%s  replacement { return %s }\n}\n"
            % (name, params, pattern, ("  where %s\n" % where) if where else "", replacement))


def rules():
    # A long commutative add chain in a pattern, and one in a test graph it runs on.
    names = ["x%d" % i for i in range(32)]
    chain = names[0]
    for n in names[1:]:
        chain = "add(%s, %s)" % (chain, n)
    yield rule("long_add_chain", chain, "x0", ", ".join(names)).encode()
    test_chain = "a"
    for _ in range(31):
        test_chain = "add(%s, a)" % test_chain
    yield (rule("long_add_chain", chain, "x0", ", ".join(names))
           + "test t {\n  graph(a: f32[2]) {\n    return %s\n  }\n" % test_chain
           + "  apply long_add_chain\n  expect count(add) == 0\n}\n").encode()
    # Deep nesting in a pattern and in a replacement, just above the limit.
    yield rule("deep", "relu(" * 300 + "x" + ")" * 300).encode()
    yield rule("deep_repl", "relu(x)", "neg(" * 250 + "x" + ")" * 250).encode()
    # Huge shapes and overflowing element counts in tests.
    yield ("test big {\n  graph(x: f32[100000, 100000]) {\n    w = param f32[100000, 100000]\n"
           "    return relu(x)\n  }\n}\n").encode()
    yield ("test overflow {\n  graph(x: f32[4611686018427387904, 4]) {\n    return relu(x)\n"
           "  }\n}\n").encode()
    # 0x0 kernels and huge paddings in replacements and tests.
    yield rule("huge_pad", "conv2d(x, w, b)",
               "conv2d(x, w, b, padding=[9223372036854775807, 9223372036854775807])",
               "x, w, b?").encode()
    yield ("test zero_kernel {\n  graph(x: f32[1, 3, 8, 8]) {\n    w = param f32[4, 3, 0, 0]\n"
           "    return conv2d(x, w)\n  }\n}\n").encode()
    # A replacement that changes the value's shape.
    yield rule("halve", "relu(x)", "max_pool2d(x, [2, 2])").encode()
    # Escape sequences and invalid UTF-8 in names, strings and comments; NUL-separated files.
    yield ("# %s\n" % ESC).encode() + rule("esc", "relu(x)").encode().replace(b"esc", b"e\x1bsc", 1)
    yield ('import "%s.rules"\n' % ESC).encode()
    yield b"rule \xff\xfe { pattern(x) { return relu(x) } replacement { return x } }\n"
    # Imports outside the folder, of odd names, and cycles across the NUL-separated files.
    for path in ("/etc/passwd", "../up.rules", "/dev/zero", "a.rules\0b.rules", ""):
        yield ('import "%s"\n' % path).encode()
    yield b'import "a.rules"\n\0import "b.rules"\n\0import "main.rules"\n'
    # Duplicate rule and phase names; a phase naming itself.
    yield (rule("twice", "relu(x)") + rule("twice", "neg(x)")).encode()
    yield (rule("r", "relu(x)") + "phase p fixpoint { r }\nphase p fixpoint { r, p }\n").encode()
    # Huge numbers in attributes and conditions.
    yield rule("num", "leaky_relu(x, negative_slope=1e400)").encode()
    yield rule("num2", "relu(x)", where="rank(x) == 99999999999999999999").encode()


SEEDS = {
    "rules": rules,
    "model_json": model_json,
    "safetensors": safetensors,
    "npy": npy,
    "rewrite": rewrite,
    "compile": compile_inputs,
}
