#!/usr/bin/python3
"""Checks the ATen table (tools/export/aten_ops.py) against PyTorch's ATen schemas and graft's
registry (docs/ops.md):

    aten_table_test.py SOURCE_DIR

- every row names an overload that exists in torch.ops.aten;
- a declarative row reads only arguments of that overload's schema, and accounts for every one
  of them (an operand, an attribute source, a requirement or a dropped argument);
- every graft op a row names is in the registry or in PROPOSED, and the row's attribute names
  are parameters of that op's signature;
- every PROPOSED signature parses, and a proposed op that the registry has gained has the
  registry's parameter names (so the rows written for the proposal still bind).
"""
import os
import re
import sys
import unittest

SOURCE_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.getcwd()
sys.path.insert(0, os.path.join(SOURCE_DIR, "tools"))

import torch  # noqa: E402

from export import aten_ops, registry  # noqa: E402


def overload(name):
    namespace, packet, overload_name = name.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), packet), overload_name)


def declarative_rows():
    """(overload name, row) of every row that maps arguments by name, including the rows
    inside first_output."""
    for name, row in aten_ops.ROWS.items():
        inner = getattr(row.outputs, "row", None) if row.outputs is not None else None
        if inner is not None:
            yield name, inner
        elif row.convert is None and row.outputs is None:
            yield name, row


class AtenTableTest(unittest.TestCase):
    def test_every_row_names_an_existing_overload(self):
        for name in aten_ops.ROWS:
            with self.subTest(row=name):
                self.assertTrue(name.startswith("aten."), name)
                overload(name)

    def test_declarative_rows_account_for_every_schema_argument(self):
        for name, row in declarative_rows():
            with self.subTest(row=name):
                arguments = {a.name for a in overload(name)._schema.arguments}
                sources = row.sources()
                self.assertEqual(sources - arguments, set(), "arguments the schema lacks")
                self.assertEqual(arguments - sources, set(), "arguments the row ignores")

    def test_graft_ops_are_in_the_registry_or_proposed(self):
        ops = registry.graft_ops(registry.OPS_MD)
        self.assertIsNotNone(ops, "docs/ops.md not found")
        for name, row in declarative_rows():
            with self.subTest(row=name):
                if row.graft in ops:
                    signature = ops[row.graft]
                else:
                    self.assertIn(row.graft, aten_ops.PROPOSED)
                    signature = registry.parse_signature(aten_ops.PROPOSED[row.graft])
                self.assertEqual(set(row.attrs) - set(signature.names()), set(),
                                 "attributes %s has no parameter for" % signature)
                self.assertLessEqual(len(row.operands), len(signature.params))

    def test_converters_emit_ops_of_the_registry_or_proposed(self):
        # the ops the custom converters and the reshape planner name literally, and the
        # convolutions convolution() names by rank
        ops = registry.graft_ops(registry.OPS_MD)
        names = {"conv%dd" % n for n in (1, 2, 3)} | {"conv_transpose%dd" % n for n in (1, 2, 3)}
        for file in ("aten_convert.py", "builder.py"):
            with open(os.path.join(SOURCE_DIR, "tools", "export", file)) as f:
                names |= set(re.findall(r'(?:call|step|emit)\(\s*"([a-z_0-9]+)"', f.read()))
        self.assertIn("unflatten", names)
        for op in sorted(names):
            with self.subTest(op=op):
                self.assertTrue(op in ops or op in aten_ops.PROPOSED, op)

    def test_proposed_signatures_parse_and_agree_with_the_registry(self):
        ops = registry.graft_ops(registry.OPS_MD)
        for op, text in aten_ops.PROPOSED.items():
            with self.subTest(op=op):
                signature = registry.parse_signature(text)
                self.assertIsNotNone(signature, text)
                self.assertEqual(signature.name, op)
                if op in ops:
                    self.assertEqual(ops[op].names(), signature.names(),
                                     "graft's registry has '%s' with other parameters than "
                                     "PROPOSED; update the rows and PROPOSED" % op)

    def test_first_output_rows_refuse_the_other_outputs(self):
        row = aten_ops.ROWS["aten.native_layer_norm.default"]
        self.assertIsNotNone(getattr(row.outputs, "row", None))
        with self.assertRaisesRegex(Exception, "output 1 \\(mean and rstd\\) is used"):
            row.outputs(None, None, 1)

    def test_registry_reads_docs_ops_md(self):
        ops = registry.graft_ops(registry.OPS_MD)
        self.assertIn("conv2d", ops)
        self.assertEqual(ops["conv2d"].names()[:3], ["input", "weight", "bias"])
        self.assertEqual(ops["cat"].params[0], ("tensors", "Tensor[]", False))


if __name__ == "__main__":
    unittest.main(verbosity=2)
