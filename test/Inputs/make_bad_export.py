#!/usr/bin/env python3
# ===- make_bad_export.py - broken variants of a torch.export archive -----=== #
#
# Writes a broken copy of a real sample for the negative tests in
# test/Frontend. Uses only the standard library (no torch, no tcc), so each
# test names the one thing it breaks:
#
#   make_bad_export.py MODE SRC DST [ARG...]
#
# Modes (SRC is a model.pt2 unless noted):
#   truncate               first half of SRC's bytes
#   not-zip                a text file, not a zip archive
#   drop-model-json        the archive without models/model.json
#   drop-entry NAME        the archive without the entry ending in NAME
#   schema-major N         schema_version.major = N
#   bad-json               a bare model.json (SRC is a .pt2 or .json) with a
#                          syntax error on line 3
#   bad-json-in-zip        the archive with that broken models/model.json
#   dangle NODE INPUT VAL  input INPUT of node NODE now names value VAL
#   dtype VALUE CODE       tensor_values[VALUE].dtype = CODE
#   shrink-weight NAME N   weight entry ending in NAME keeps its first N bytes
#   target NODE OP [NODE OP ...]
#                          each node NODE's target becomes OP
#   range SYM MIN MAX      range_constraints[SYM] = [MIN, MAX] (JSON numbers;
#                          a new entry if SYM has none)
#   add-guards GUARD...    each GUARD appended to guards_code (Python text)
#
# ===----------------------------------------------------------------------=== #
"""usage: make_bad_export.py MODE SRC DST [ARG...] (modes: see the file header)"""
import json
import sys
import zipfile


def model_json_name(names):
    for name in names:
        if name.endswith("models/model.json"):
            return name
    raise SystemExit("no models/model.json in the source archive")


def entry_name(names, suffix):
    for name in names:
        if name.endswith(suffix):
            return name
    raise SystemExit(f"no entry ending in {suffix!r} in the source archive")


def read_entries(src):
    with zipfile.ZipFile(src) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def write_entries(dst, entries):
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as archive:
        for info, data in entries:
            archive.writestr(info, data)


def edit_model(src, dst, edit):
    """Rewrites models/model.json with `edit(model)`, keeping every other entry."""
    entries = read_entries(src)
    target = model_json_name([info.filename for info, _ in entries])
    out = []
    for info, data in entries:
        if info.filename == target:
            model = json.loads(data)
            edit(model)
            data = json.dumps(model).encode()
        out.append((info, data))
    write_entries(dst, out)


def break_json(text):
    """Pretty-prints `text` and drops the ':' on line 3 (`"graph": {` -> `"graph" {`)."""
    lines = json.dumps(json.loads(text), indent=1).splitlines()
    lines[2] = lines[2].replace('":', '"', 1)
    return "\n".join(lines) + "\n"


def find_node(model, name):
    for node in model["graph_module"]["graph"]["nodes"]:
        if node["name"] == name:
            return node
    raise SystemExit(f"no node {name!r}")


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    mode, src, dst, args = argv[0], argv[1], argv[2], argv[3:]

    if mode == "truncate":
        data = open(src, "rb").read()
        open(dst, "wb").write(data[: len(data) // 2])
    elif mode == "not-zip":
        open(dst, "w").write("this is not a zip archive\n")
    elif mode == "drop-model-json":
        entries = read_entries(src)
        target = model_json_name([info.filename for info, _ in entries])
        write_entries(dst, [e for e in entries if e[0].filename != target])
    elif mode == "drop-entry":
        entries = read_entries(src)
        target = entry_name([info.filename for info, _ in entries], args[0])
        write_entries(dst, [e for e in entries if e[0].filename != target])
    elif mode == "schema-major":
        def edit(model):
            model["schema_version"]["major"] = int(args[0])
        edit_model(src, dst, edit)
    elif mode == "bad-json":
        if src.endswith(".json"):
            text = open(src).read()
        else:
            entries = read_entries(src)
            target = model_json_name([info.filename for info, _ in entries])
            text = dict((i.filename, d) for i, d in entries)[target].decode()
        open(dst, "w").write(break_json(text))
    elif mode == "bad-json-in-zip":
        entries = read_entries(src)
        target = model_json_name([info.filename for info, _ in entries])
        write_entries(dst, [(i, break_json(d.decode()).encode() if i.filename == target else d)
                            for i, d in entries])
    elif mode == "dangle":
        node_name, input_name, value = args

        def edit(model):
            node = find_node(model, node_name)
            for arg in node["inputs"]:
                if arg["name"] == input_name:
                    arg["arg"]["as_tensor"]["name"] = value
                    return
            raise SystemExit(f"node {node_name!r} has no input {input_name!r}")
        edit_model(src, dst, edit)
    elif mode == "range":
        sym, lo, hi = args

        def edit(model):
            model.setdefault("range_constraints", {})[sym] = {"min_val": json.loads(lo),
                                                              "max_val": json.loads(hi)}
        edit_model(src, dst, edit)
    elif mode == "add-guards":
        def edit(model):
            model.setdefault("guards_code", []).extend(args)
        edit_model(src, dst, edit)
    elif mode == "dtype":
        value, code = args

        def edit(model):
            model["graph_module"]["graph"]["tensor_values"][value]["dtype"] = int(code)
        edit_model(src, dst, edit)
    elif mode == "shrink-weight":
        entries = read_entries(src)
        target = entry_name([info.filename for info, _ in entries], args[0])
        keep = int(args[1])
        write_entries(dst, [(i, d[:keep] if i.filename == target else d)
                            for i, d in entries])
    elif mode == "target":
        if not args or len(args) % 2:
            raise SystemExit("target needs NODE OP pairs")

        def edit(model):
            for node_name, op in zip(args[0::2], args[1::2]):
                find_node(model, node_name)["target"] = op
        edit_model(src, dst, edit)
    else:
        raise SystemExit(f"unknown mode {mode!r}; {__doc__}")


if __name__ == "__main__":
    main(sys.argv[1:])
