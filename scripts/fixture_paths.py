"""Stack traces in committed exports, relative to the repository.

torch.export records each node's Python stack with absolute file names; a
fixture exported from /home/alice/tcc would carry that path (and differ from
one exported elsewhere). Files inside the repository are named relative to
its root; the Python installation's own files keep their paths.
"""
import os

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
