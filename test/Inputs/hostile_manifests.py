"""hostile_manifests.py GUARDS_JSON OUT_DIR: variants of a real manifest that a
hostile or careless user could hand `tcc inspect` (issue 38): out-of-range
memory plan steps, a kernel graph of the wrong shape, markup and terminal
escapes in names, a FIFO in place of a file."""
import json
import os
import sys

base = json.load(open(sys.argv[1]))
out = sys.argv[2]


def write(name, manifest):
    with open(os.path.join(out, name), "w") as f:
        json.dump(manifest, f)


m = json.loads(json.dumps(base))
m["arena"]["buffers"] = [{"offset": 0, "bytes": 0, "first": 0, "last": 99999999999}]
write("steps_huge.json", m)
m["arena"]["buffers"] = [{"offset": 0, "bytes": 0, "first": 5, "last": -3}]
write("steps_backwards.json", m)
m["arena"]["buffers"] = [{"offset": -4, "bytes": 8, "first": 0, "last": 1}]
write("offset_negative.json", m)
m = json.loads(json.dumps(base))
m["kernel_graph"] = {}
write("graph_empty.json", m)
m["kernel_graph"] = {"inputs": "x", "edges": 7}
write("graph_wrong_types.json", m)
m["kernel_graph"] = {"edges": [{"from": "k0"}]}
write("graph_edge_missing_end.json", m)
m = json.loads(json.dumps(base))
m["inputs"][0]["name"] = "<script>alert(1)</script>"
m["model"] = "evil\x1b[31mRED\x1b[0m"
m["kernels"][0]["detail"] = "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
write("markup.json", m)
m = json.loads(json.dumps(base))
m["symbols"] = {"s77": {"min": "<img src=x onerror=alert(1)>", "max": 4}}
write("symbol_markup.json", m)
os.mkfifo(os.path.join(out, "fifo.json"))
