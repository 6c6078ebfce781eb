#!/usr/bin/env python3
"""Lists committed exports whose stack traces name a file by an absolute path
outside the Python installation (a path of the machine that exported them;
issue 17). scripts/fixture_paths.py writes them relative to the repository.
Read: torch.export archives (.pt2) and bare model.json files (`File "..."`
in their traces), TorchScript graph dumps (*graph.txt: `# /path:line`
comments) and torch.jit.save archives (.pt: debug records and code).

    python3 scripts/check_fixture_paths.py DIR...   # exit 1 on a finding
"""
import json
import pathlib
import pickle
import re
import sys
import zipfile

FILE = re.compile(r'File "(/[^"]+)"')
DUMP_COMMENT = re.compile(r"# (/[^:\n]+):\d+")
DEBUG_RECORD = re.compile(r"(/[^(\s]+)\(\d+\)")
PYTHON_INSTALL = ("site-packages", "dist-packages", "/lib/python3")


def graph_texts(path):
    if path.name == "model.json":
        yield path.read_text(errors="replace")
    elif path.suffix == ".pt2":
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".json"):
                    yield z.read(name).decode(errors="replace")


def absolute_paths(path):
    """Absolute file names the fixture at `path` holds."""
    if path.name == "model.json" or path.suffix == ".pt2":
        for text in graph_texts(path):
            # Traces are JSON strings inside JSON: unescape once.
            yield from FILE.findall(text.replace('\\"', '"'))
    elif path.suffix == ".txt" and path.name.endswith("graph.txt"):
        yield from DUMP_COMMENT.findall(path.read_text(errors="replace"))
    elif path.suffix == ".pt" and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".debug_pkl"):
                    yield from debug_record_paths(pickle.loads(z.read(name)))


def debug_record_paths(value):
    """File names in a TorchScript debug record's source ranges: strings whose
    lines read "/path/file.py(123): function"."""
    if isinstance(value, str):
        for line in value.splitlines():
            m = DEBUG_RECORD.match(line)
            if m:
                yield m.group(1)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from debug_record_paths(v)


def findings(root):
    for path in sorted(pathlib.Path(root).rglob("*")):
        for f in sorted(set(absolute_paths(path))):
            if not any(p in f for p in PYTHON_INSTALL):
                yield f"{path}: {f}"


def main():
    found = [f for root in sys.argv[1:] for f in findings(root)]
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
