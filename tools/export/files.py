"""Writing an exported model: model.json, model.safetensors and the reference .npy files, all
into one directory, all or nothing.

The files are first written into a temporary directory beside the target and fsynced. A new
target directory is then that directory renamed; an existing one gets each file renamed into
it, the weights and reference data before model.json (as `rewrite` saves: a reader never sees
a model.json whose weights are missing). A failure before the renames leaves the target as it
was.
"""
import io
import json
import os
import shutil
import struct
import tempfile

import numpy as np

from .common import ExportError

# safetensors dtype names of the numpy dtypes the exporter writes
_SAFETENSORS_DTYPES = {"float32": "F32", "float64": "F64", "float16": "F16", "int64": "I64",
                       "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8",
                       "bool": "BOOL"}


def safetensors_bytes(named, metadata=None):
    """A safetensors file as bytes: tensors sorted by name, the JSON header padded with spaces
    to a multiple of 8 (the layout graft itself writes; tools/examples/make_tiny_cnn.py writes
    the same). `named` maps names to numpy arrays."""
    header, offset, blobs = {}, 0, []
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(named):
        # np.ascontiguousarray would make a 0-d array 1-d; a scalar constant stays shape [].
        array = np.require(named[name], requirements="C")
        dtype = _SAFETENSORS_DTYPES[array.dtype.name]
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return b"".join([struct.pack("<Q", len(text)), text] + blobs)


def model_json_text(model):
    """model.json with one node per line: readable, and diffs show the nodes that changed."""
    lines = ["{"]
    keys = [k for k in model if k != "nodes"]
    for k in keys:
        lines.append(" %s: %s," % (json.dumps(k), json.dumps(model[k])))
    lines.append(' "nodes": [')
    nodes = model["nodes"]
    for i, node in enumerate(nodes):
        lines.append("  %s%s" % (json.dumps(node), "," if i + 1 < len(nodes) else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def check_output_dir(out_dir):
    """Rejects a target that cannot become a directory, before any work is done."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError("output directory '%s' exists and is not a directory" % out_dir)
    parent = os.path.dirname(os.path.abspath(out_dir))
    probe = parent
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise ExportError("cannot create output directory '%s': '%s' is not a directory"
                          % (out_dir, probe))


def write_directory(out_dir, files):
    """Writes files ({name: bytes}, in commit order: model.json last) into out_dir atomically
    as described above."""
    check_output_dir(out_dir)
    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir)
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".%s.export-" % os.path.basename(out_dir), dir=parent)
    except OSError as e:
        raise ExportError("cannot create output directory '%s': %s" % (out_dir, e.strerror))
    try:
        for name, data in files.items():
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        if not os.path.exists(out_dir):
            os.chmod(staging, 0o777 & ~_umask())
            os.rename(staging, out_dir)
            staging = None
        else:
            for name in files:
                os.replace(os.path.join(staging, name), os.path.join(out_dir, name))
        _fsync_dir(out_dir)
    except OSError as e:
        raise ExportError("cannot write '%s': %s" % (e.filename or out_dir, e.strerror))
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
