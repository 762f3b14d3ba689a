"""Source lines of the model code: the innermost frame of a traceback or of a traced node's
recorded stack that is not in torch, functorch, Python's standard library or this exporter.
torchvision's files count as model code (its models are what fails), so directories are
compared with their trailing separator: '.../torchvision/' is not under '.../torch/'.
"""
import os
import sysconfig
import traceback

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_DIRS = [os.path.dirname(torch.__file__) + os.sep, _HERE + os.sep]
_DRIVER = os.path.join(os.path.dirname(_HERE), "export_fx.py")
try:
    import functorch
    _LIBRARY_DIRS.append(os.path.dirname(functorch.__file__) + os.sep)
except ImportError:  # pragma: no cover - a torch without functorch
    pass


_STDLIB_DIR = os.path.join(sysconfig.get_paths()["stdlib"], "")
_PACKAGE_DIRS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _is_stdlib_file(filename):
    # A virtual environment's or conda's packages live under the standard library's directory.
    return filename.startswith(_STDLIB_DIR) and not is_installed_file(filename)


def is_installed_file(filename):
    """True for a file of an installed package (site-packages, dist-packages)."""
    return any(d in filename for d in _PACKAGE_DIRS)


def is_library_file(filename):
    """True for the files of torch, functorch, the standard library and the exporter, and for
    code without a file ('<string>'): frames a user cannot change."""
    if filename.startswith("<"):
        return True
    filename = os.path.abspath(filename)    # code imported through 'dir/./tools' keeps the '.'
    return (any(filename.startswith(d) for d in _LIBRARY_DIRS) or filename == _DRIVER
            or _is_stdlib_file(filename))


class Frame:
    """A source location: file, line, function and the line's text."""

    __slots__ = ("filename", "lineno", "name", "line")

    def __init__(self, filename, lineno, name, line):
        self.filename, self.lineno, self.name, self.line = filename, lineno, name, line


def user_frames_of_traceback(tb):
    """The frames of a traceback outside the libraries (is_library_file), outermost first."""
    return [Frame(f.filename, f.lineno, f.name, (f.line or "").strip())
            for f in traceback.extract_tb(tb) if not is_library_file(f.filename)]


def user_frame_of_traceback(tb):
    """The innermost frame of a traceback outside torch and the exporter: where the user's
    code (or torchvision's) failed."""
    frames = user_frames_of_traceback(tb)
    return frames[-1] if frames else None


def user_frame_of_node(node):
    """The innermost frame of the model code in a node's recorded stack trace (fx records
    it innermost first when record_stack_traces is set), or None."""
    text = node.meta.get("stack_trace") or getattr(node, "stack_trace", None)
    if not text:
        return None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith('File "'):
            filename, rest = line[len('File "'):].split('"', 1)
            parts = [p.strip() for p in rest.split(",")]
            lineno = int(parts[1].split()[1]) if len(parts) > 1 else 0
            name = parts[2][3:] if len(parts) > 2 and parts[2].startswith("in ") else ""
            code = ""
            if i + 1 < len(lines) and not lines[i + 1].strip().startswith('File "'):
                code = lines[i + 1].strip()
                i += 1
            if not is_library_file(filename):
                return Frame(filename, lineno, name, code)
        i += 1
    return None


def where_text(frame):
    """'\\n  at FILE:LINE in FUNC: CODE' for a frame, '' for None."""
    if frame is None:
        return ""
    return "\n  at %s:%d in %s: %s" % (frame.filename, frame.lineno, frame.name, frame.line)
