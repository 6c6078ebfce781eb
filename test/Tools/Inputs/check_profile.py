"""Checks `tcc run --profile`'s table and --profile-json against the
artifact's manifest: every kernel appears once in each, the shares sum to
about 100%, the table is ordered by cost. Usage: check_profile.py table.txt
times.json manifest.json"""
import json
import re
import sys

table, times, manifest = sys.argv[1:4]
kernels = json.load(open(manifest))["kernels"]
n = len(kernels)
lines = open(table).read().splitlines()
head = [l for l in lines if l.startswith("profile: ")]
assert len(head) == 1, head
m = re.match(r"profile: (\d+) runs on (\w+), (\d+) kernels, ([0-9.]+) us per run in kernels", head[0])
assert m, head[0]
assert int(m.group(3)) == n, (m.group(3), n)
rows = [l.split() for l in lines[lines.index(head[0]) + 2:] if re.match(r"\s+\d+\s", l)]
indices = [int(r[0]) for r in rows]
assert sorted(indices) == list(range(n)), indices
shares = [float(r[4].rstrip("%")) for r in rows]
means = [float(r[3]) for r in rows]
calls = [int(r[2]) for r in rows]
assert abs(sum(shares) - 100) < 0.5 + 0.05 * n, sum(shares)
for r in rows:
    assert r[1] == kernels[int(r[0])]["kind"], (r, kernels[int(r[0])])
print(f"table: {n} kernels, each once, shares sum to 100%")
totals = [s for s in shares]
assert totals == sorted(totals, reverse=True), totals
print("table: ordered by cost")
j = json.load(open(times))
assert j["format"] == "tcc-profile" and j["device"] == "cpu", j
assert sorted(k["index"] for k in j["kernels"]) == list(range(n))
for k in j["kernels"]:
    assert k["kind"] == kernels[k["index"]]["kind"]
    assert k["calls"] == j["calls"], (k, j["calls"])
    assert k["mean_ms"] >= 0 and abs(k["mean_ms"] * k["calls"] - k["total_ms"]) < 1e-9 + 1e-6 * k["total_ms"]
print(f"json: {j['calls']} calls, {n} kernels with kind, detail, mean_ms, total_ms")
