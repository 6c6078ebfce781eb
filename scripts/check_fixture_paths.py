#!/usr/bin/env python3
"""Lists committed exports whose stack traces name a file by an absolute path
outside the Python installation (a path of the machine that exported them;
issue 17). scripts/fixture_paths.py writes them relative to the repository.

    python3 scripts/check_fixture_paths.py DIR...   # exit 1 on a finding
"""
import json
import pathlib
import re
import sys
import zipfile

FILE = re.compile(r'File "(/[^"]+)"')
PYTHON_INSTALL = ("site-packages", "dist-packages", "/lib/python3")


def graph_texts(path):
    if path.name == "model.json":
        yield path.read_text(errors="replace")
    elif path.suffix == ".pt2":
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".json"):
                    yield z.read(name).decode(errors="replace")


def findings(root):
    for path in sorted(pathlib.Path(root).rglob("*")):
        if path.name != "model.json" and path.suffix != ".pt2":
            continue
        for text in graph_texts(path):
            # Traces are JSON strings inside JSON: unescape once.
            text = text.replace('\\"', '"')
            for f in sorted(set(FILE.findall(text))):
                if not any(p in f for p in PYTHON_INSTALL):
                    yield f"{path}: {f}"


def main():
    found = [f for root in sys.argv[1:] for f in findings(root)]
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
