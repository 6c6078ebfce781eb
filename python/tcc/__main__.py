"""python -m tcc: where the package finds tcc and what its cache holds.

    python -m tcc                 # the package, the tcc executable, the cache
    python -m tcc --clear-cache   # delete the cache's artifacts
"""
import argparse
import os
import shutil
import sys

from . import TccError
from .compiler import _version, default_cache_dir, find_executable


def _describe_cache(cache_dir):
    if not os.path.isdir(cache_dir):
        return f"{cache_dir} (empty: no such directory yet)"
    entries = [e for e in os.listdir(cache_dir)
               if os.path.isfile(os.path.join(cache_dir, e, "model.so"))]
    size = 0
    for root, _, files in os.walk(cache_dir):
        size += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return f"{cache_dir} ({len(entries)} artifacts, {size / 1e6:.1f} MB)"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tcc",
        description="Shows where the tcc package finds the tcc executable (TCC_BIN, then "
                    "PATH, then the build tree of a source or editable install) and what "
                    "its artifact cache ($TCC_CACHE_DIR, else ~/.cache/tcc) holds.")
    parser.add_argument("--cache-dir", help="the cache to show or clear "
                        "(default: $TCC_CACHE_DIR, else ~/.cache/tcc)")
    parser.add_argument("--clear-cache", action="store_true",
                        help="delete the cache directory and everything in it")
    args = parser.parse_args(argv)
    cache_dir = os.path.abspath(args.cache_dir or default_cache_dir())
    if args.clear_cache:
        shutil.rmtree(cache_dir, ignore_errors=True)
        print(f"cleared {cache_dir}")
        return 0
    print(f"package:    {os.path.dirname(os.path.abspath(__file__))}")
    status = 0
    try:
        exe = find_executable()
        print(f"executable: {exe}")
        print(f"version:    {_version(exe)}")
    except TccError as e:
        print(f"executable: none: {e}")
        status = 1
    print(f"cache:      {_describe_cache(cache_dir)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
