#!/usr/bin/env python3
"""Rewrites an export's model.json so that readers of an in-place op's result
name its mutated operand instead (`add(silu_, 1)` becomes `add(mul, 1)`), the
form other producers emit; the model's meaning is unchanged."""
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
j = json.load(open(src))
renames = {}
for n in j["graph_module"]["graph"]["nodes"]:
    for a in n["inputs"]:
        t = a["arg"].get("as_tensor")
        if t and t["name"] in renames:
            t["name"] = renames[t["name"]]
    name = n["target"].split(".")[-2]
    if name.endswith("_") and not name.endswith("__"):
        mutated = n["inputs"][0]["arg"]["as_tensor"]["name"]
        renames[n["outputs"][0]["as_tensor"]["name"]] = mutated
json.dump(j, open(dst, "w"))
