#!/usr/bin/env python3
"""Runs every tcc-opt RUN line of the pass tests with two tcc-opt builds and
compares what they print.

tcc's IR must not depend on the compiler that built tcc (issue 17: IR created
inside call arguments came out in another order from a clang build). The lit
tests' FileCheck patterns do not pin everything (CHECK-DAG, unchecked
constants), so scripts/clang_check.sh also runs each test's tcc-opt command
with the gcc-built and the clang-built tcc-opt and requires byte-identical
output, diagnostics and exit status.

    python3 scripts/compare_ir_builds.py [--expected FILE] GCC_TCC_OPT CLANG_TCC_OPT TEST_DIR...

Prints one line per difference (the test, its RUN line, the first differing
lines) and ends with "compare: N passed, M failed" (one per RUN line). FILE
lists the RUN lines known to differ ("test/path.mlir:LINE  why", the side
table of test/Inputs/compiler-dependent-ir.txt): they are reported as
XDIFFERS and not counted; one that no longer differs fails, so that the entry
is removed with the fix.
"""
import difflib
import pathlib
import shlex
import subprocess
import sys


def run_lines(path):
    """The tcc-opt command of each RUN line: (line number, argument list)."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if "RUN:" not in line:
            continue
        command = line.split("RUN:", 1)[1].split("|", 1)[0].strip()
        words = shlex.split(command)
        if words and words[0] == "not":
            words = words[1:]
        if not words or words[0] != "tcc-opt":
            continue
        yield number, [str(path) if w == "%s" else w for w in words[1:]]


def run(tool, args):
    p = subprocess.run([tool] + args, capture_output=True, text=True, timeout=300)
    # Diagnostics name the tool; the two builds live in different directories.
    return p.returncode, p.stdout, p.stderr.replace(tool, "tcc-opt")


def read_expected(path):
    """The RUN lines known to differ: {"test/x.mlir:LINE"}."""
    expected = set()
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            expected.add(line.split()[0])
    return expected


def main():
    args = sys.argv[1:]
    expected = set()
    if args[:1] == ["--expected"]:
        expected = read_expected(args[1])
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    first, second, dirs = args[0], args[1], args[2:]
    root = pathlib.Path(__file__).resolve().parent.parent
    passed = failed = known = 0
    for d in dirs:
        for path in sorted(pathlib.Path(d).rglob("*.mlir")):
            for number, run_args in run_lines(path):
                a, b = run(first, run_args), run(second, run_args)
                try:
                    key = f"{path.resolve().relative_to(root)}:{number}"
                except ValueError:
                    key = f"{path}:{number}"
                if a == b and key in expected:
                    failed += 1
                    print(f"FIXED {key}: the builds agree now; remove it from the expected list")
                    continue
                if a == b:
                    passed += 1
                    continue
                if key in expected:
                    known += 1
                    print(f"XDIFFERS {key} (expected)")
                    continue
                failed += 1
                print(f"DIFFERS {key}: tcc-opt {' '.join(run_args)}")
                for what, x, y in (("exit", str(a[0]), str(b[0])), ("stdout", a[1], b[1]),
                                   ("stderr", a[2], b[2])):
                    if x == y:
                        continue
                    diff = list(difflib.unified_diff(x.splitlines(), y.splitlines(),
                                                     first, second, n=0, lineterm=""))
                    print(f"  {what}:\n    " + "\n    ".join(diff[2:8]))
    if known:
        print(f"compare: {known} known difference(s) not counted")
    print(f"compare: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
