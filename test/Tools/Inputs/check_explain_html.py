#!/usr/bin/env python3
# ===- check_explain_html.py - the structure of tcc explain's HTML report -=== #
#
#   check_explain_html.py REPORT.html REPORT.json
#   check_explain_html.py --manifest PAGE.html MODEL.guards.json   (tcc inspect --html)
#   check_explain_html.py PAGE.html --profile TIMES.json   (the kernel-times chart of
#       --html --profile: a bar per kernel of TIMES.json, most expensive first)
#
# The page is well-formed XML; every kernel of the JSON report is a box of the
# kernel graph (with its kind, source ops and lines in its hover title), every
# edge an edge, every planned buffer a bar of the memory plot, the peak
# marked; and nothing is loaded from elsewhere (no src/href, no url(), no
# @import, no <link>). Prints one line per check.
#
# ===----------------------------------------------------------------------=== #
import json
import re
import sys
import xml.etree.ElementTree as ET

args = sys.argv[1:]
SVG = "{http://www.w3.org/2000/svg}"
if "--profile" in args:
    page, times = args[0], json.load(open(args[2]))
    root = ET.fromstring(open(page, encoding="utf-8").read())
    chart = root.find(f".//{SVG}svg[@id='kernel-times']")
    bars = [g for g in chart.iter(f"{SVG}g") if g.get("class") == "time-bar"]
    assert len(bars) == len(times["kernels"]), (len(bars), len(times["kernels"]))
    by_index = {k["index"]: k for k in times["kernels"]}
    totals = [by_index[int(g.get("data-index"))]["total_ms"] for g in bars]
    assert totals == sorted(totals, reverse=True), totals
    assert sorted(by_index) == sorted(int(g.get("data-index")) for g in bars)
    for g in bars:
        k = by_index[int(g.get("data-index"))]
        title = g.find(f"{SVG}title").text
        assert g.get("data-kind") == k["kind"] and k["kind"] in title, (title, k)
        for x in k.get("sources", []) + k.get("lines", []):
            assert x in title, (x, title)
    print(f"kernel times: {len(bars)} bars, ordered by cost, each with its kind, sources and lines")
    sys.exit(0)
manifest = args[0] == "--manifest"
html_path, json_path = args[-2], args[-1]
text = open(html_path, encoding="utf-8").read()
report = json.load(open(json_path))
if manifest:
    # The guard manifest's kernels, kernel_graph and arena, as explain's fields.
    report = {"kernels": {"count": len(report["kernels"]), "list": report["kernels"],
                          "graph": report["kernel_graph"]},
              "memory": {"buffers": len(report["arena"]["buffers"])}}
root = ET.fromstring(text)  # raises on a page that is not well-formed
print("well-formed")

graph = root.find(f".//{SVG}svg[@id='kernel-graph']")
kernels = report["kernels"]
boxes = {g.get("id"): g for g in graph.iter(f"{SVG}g") if g.get("class") == "kernel"}
assert len(boxes) == kernels["count"] == len(kernels["list"]), (len(boxes), kernels["count"])
for i, k in enumerate(kernels["list"]):
    box = boxes[f"k{i}"]
    assert box.get("data-kind") == k["kind"], (i, box.get("data-kind"), k["kind"])
    title = box.find(f"{SVG}title").text
    for source in k["sources"]:
        assert source in title, (i, source, title)
    for line in k["lines"]:
        assert line in title, (i, line, title)
print(f"kernels: {len(boxes)}, each with its kind, sources and lines")

edges = [g for g in graph.iter(f"{SVG}g") if g.get("class") == "edge"]
assert len(edges) == len(kernels["graph"]["edges"]), (len(edges), len(kernels["graph"]["edges"]))
for g, e in zip(edges, kernels["graph"]["edges"]):
    label = "x".join(str(d) for d in e["shape"]) + " " + e["dtype"]
    assert g.get("data-from") == e["from"] and g.get("data-to") == e["to"], (g.attrib, e)
    assert g.find(f"{SVG}text").text == label, (g.find(f"{SVG}text").text, label)
print(f"edges: {len(edges)}, labelled with shape and dtype")

plot = root.find(f".//{SVG}svg[@id='memory-plan']")
bars = [r for r in plot.iter(f"{SVG}rect") if r.get("class") == "buffer"]
assert len(bars) == report["memory"]["buffers"], (len(bars), report["memory"]["buffers"])
assert plot.find(f"{SVG}line[@id='peak']") is not None
print(f"memory plan: {len(bars)} buffers, peak marked")

for element in root.iter():
    for attr, value in element.attrib.items():
        assert attr not in ("src", "href", "{http://www.w3.org/1999/xlink}href"), (element.tag, attr, value)
assert root.find(".//{http://www.w3.org/1999/xhtml}link") is None
assert not re.search(r"url\(|@import", text), "a style loads something"
print("self-contained")
