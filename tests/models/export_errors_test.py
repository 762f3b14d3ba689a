#!/usr/bin/python3
"""export_fx.py's refusals, one CTest test per case:

    export_errors_test.py SOURCE_DIR WORK_DIR CASE

Each case runs the exporter on a model of bad_models.py (or a bad output path) and checks
exit code 1, the message, that no Python traceback is printed, and that nothing is written:
no output directory, an earlier export left byte for byte as it was, no staging directory
left behind.
"""
import hashlib
import os
import shutil
import subprocess
import sys


def fail(message):
    sys.exit("%s: FAIL: %s" % (os.path.basename(sys.argv[0]), message))


class Case:
    def __init__(self, source_dir, work):
        self.src = source_dir
        self.work = work
        self.models = os.path.join(source_dir, "tests", "models", "bad_models.py")

    def export(self, factory, out, *extra):
        return self.export_spec("%s:%s" % (self.models, factory), out, *extra)

    def export_spec(self, spec, out, *extra, env=None):
        """Runs export_fx.py on a model spec; env adds environment variables."""
        command = [sys.executable, os.path.join(self.src, "tools", "export_fx.py"), spec,
                   "-o", out] + list(extra)
        print("+ " + " ".join(command))
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=dict(os.environ, **(env or {})))
        print(result.stdout + result.stderr)
        return result

    def expect_refused(self, result, *needles):
        if result.returncode != 1:
            fail("expected exit code 1, got %d" % result.returncode)
        if "Traceback" in result.stderr:
            fail("a traceback was printed")
        if not result.stderr.startswith("export_fx.py: error: "):
            fail("stderr does not start with 'export_fx.py: error: '")
        for needle in needles:
            if needle not in result.stderr:
                fail("the message lacks %r" % needle)
        leftovers = [f for f in os.listdir(self.work) if ".export-" in f]
        if leftovers:
            fail("staging directories left behind: %s" % leftovers)

    def expect_absent(self, path):
        if os.path.exists(path):
            fail("'%s' was created" % path)


def digest(directory):
    result = {}
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), "rb") as f:
            result[name] = hashlib.sha256(f.read()).hexdigest()
    return result


def case_not_traceable(c):
    out = os.path.join(c.work, "out")
    r = c.export("data_dependent_branch", out, "--capture", "fx")
    c.expect_refused(r, "torch.fx cannot trace DataDependentBranch",
                     "symbolically traced variables cannot be used as inputs to control flow",
                     "bad_models.py:", "in forward: if y.sum() > 0:",
                     "control flow that depends on tensor values",
                     "Or export with --capture aten")
    c.expect_absent(out)


def case_not_traceable_either_way(c):
    # auto: torch.fx fails, and make_fx refuses to read the tensor's value for the `if`.
    out = os.path.join(c.work, "out")
    r = c.export("data_dependent_branch", out)
    c.expect_refused(r, "make_fx (ATen) could not run DataDependentBranch on the example "
                        "inputs: RuntimeError: It appears that you're trying to get value out "
                        "of a tracing tensor",
                     "bad_models.py:20 in forward: if y.sum() > 0:",
                     "select with torch.where",
                     "(torch.fx was tried first: torch.fx could not trace: symbolically traced "
                     "variables cannot be used as inputs to control flow at ")
    c.expect_absent(out)


def case_float64_weights(c):
    out = os.path.join(c.work, "out")
    r = c.export("float64_weights", out)
    c.expect_refused(r, "graft models hold float32 weights", "are float64",
                     "'fc1.weight' (float64)", "model.float()")
    c.expect_absent(out)


def case_unsupported_ops(c):
    out = os.path.join(c.work, "out")
    r = c.export("unsupported_ops", out, "--capture", "fx")
    # nn.Conv1d converts since conv1d is a graft op; the others still have none on this path.
    c.expect_refused(r, "5 nodes of the traced graph cannot be converted",
                     "tril       call_function torch.tril",
                     "chunk      call_method 'chunk'", "getitem_1  call_function operator.getitem",
                     "cumsum     call_function torch.cumsum",
                     "export with --capture aten, or without --capture fx")
    c.expect_absent(out)


def case_output_is_file(c):
    out = os.path.join(c.work, "model.json")
    with open(out, "w") as f:
        f.write("not a directory\n")
    r = c.export("small_cnn", out)
    c.expect_refused(r, "output directory '%s' exists and is not a directory" % out)
    with open(out) as f:
        if f.read() != "not a directory\n":
            fail("the file was changed")
    r = c.export("small_cnn", os.path.join(out, "sub"))
    c.expect_refused(r, "is not a directory")


def case_failure_keeps_previous_export(c):
    out = os.path.join(c.work, "out")
    r = c.export("small_cnn", out, "--reference")
    if r.returncode != 0:
        fail("exporting small_cnn failed")
    before = digest(out)
    if sorted(before) != ["input_x.npy", "model.json", "model.safetensors", "output_0.npy",
                          "reference.json"]:
        fail("unexpected files %s" % sorted(before))
    for factory in ("data_dependent_branch", "float64_weights", "unsupported_ops"):
        c.expect_refused(c.export(factory, out, "--reference"))
        if digest(out) != before:
            fail("a refused export changed the previous one")


CASES = {
    "not-traceable": case_not_traceable,
    "not-traceable-either-way": case_not_traceable_either_way,
    "float64-weights": case_float64_weights,
    "unsupported-ops": case_unsupported_ops,
    "output-is-file": case_output_is_file,
    "failure-keeps-previous-export": case_failure_keeps_previous_export,
}


def main():
    source_dir, work, case = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CASES[case](Case(source_dir, work))
    print("export_errors_test.py: %s: ok" % case)


if __name__ == "__main__":
    main()
