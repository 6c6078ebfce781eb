"""Stack traces in committed exports, relative to the repository.

torch.export records each node's Python stack with absolute file names; a
fixture exported from /home/alice/tcc would carry that path (and differ from
one exported elsewhere). Files inside the repository are named relative to
its root; the Python installation's own files keep their paths. TorchScript
fixtures carry the same paths in their graph dumps (`# file:line` comments)
and in their archives' debug records (code/*.debug_pkl).
"""
import os
import pickle
import zipfile

import torch

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def relative_traces(ep):
    """Rewrites `ep`'s stack traces in place (higher-order ops' subgraphs too)."""
    for module in ep.graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            trace = node.meta.get("stack_trace")
            if trace:
                node.meta["stack_trace"] = trace.replace(REPO + os.sep, "")
    return ep


def relative_text(text):
    """`text` (a TorchScript graph dump) with repository paths relative."""
    return text.replace(REPO + os.sep, "")


def _relative_value(value):
    if isinstance(value, str):
        return relative_text(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_relative_value(v) for v in value)
    return value


def relative_torchscript_archive(path):
    """Rewrites a torch.jit.save archive in place: the source ranges of its
    debug records (plain pickled tuples of strings and ints) and any code text
    name repository files relative to the root. Members keep their order,
    names, dates and compression; torch.jit.load reads the result."""
    with zipfile.ZipFile(path) as z:
        members = [(info, z.read(info.filename)) for info in z.infolist()]
    prefix = (REPO + os.sep).encode()
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as out:
        for info, data in members:
            if info.filename.endswith(".debug_pkl") and prefix in data:
                data = pickle.dumps(_relative_value(pickle.loads(data)), protocol=2)
            elif prefix in data:
                data = data.replace(prefix, b"")
            member = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            member.compress_type = info.compress_type
            out.writestr(member, data)
    os.replace(tmp, path)
