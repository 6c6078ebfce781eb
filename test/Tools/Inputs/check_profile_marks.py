"""Checks that the lowered module of `tcc compile --profile --compile-to llvm`
calls tcc_profile_mark(0), ..., tcc_profile_mark(N) in order in each entry
(the CPU and the CUDA one), N the number of kernels of `tcc explain --json`.
Usage: check_profile_marks.py module.mlir explain.json"""
import json
import re
import sys

text = open(sys.argv[1]).read()
n = json.load(open(sys.argv[2]))["kernels"]["count"]
entries = {}
for m in re.finditer(r"llvm\.func @([\w$.]+)\(.*?\n(.*?)\n  \}\n", text, re.S):
    name, body = m.group(1), m.group(2)
    consts = dict(re.findall(r"(%[\w]+) = llvm\.mlir\.constant\((-?\d+) : i32\) : i32", body))
    calls = re.findall(r"llvm\.call @tcc_profile_mark\((%[\w]+)\)", body)
    if calls:
        entries[name] = [int(consts[c]) for c in calls]
assert len(entries) == 2, sorted(entries)
for name, marks in sorted(entries.items()):
    assert marks == list(range(n + 1)), (name, marks, n)
    print(f"{'cuda' if 'cuda' in name else 'cpu'} entry: marks 0..{n} in order")
