"""python -m tcc: where the package finds tcc and what its cache holds.

    python -m tcc                 # the package, the tcc executable, the cache
    python -m tcc --clear-cache   # delete the cache's artifacts (and nothing else)
"""
import argparse
import os
import sys

from . import TccError
from .cache import Cache, CacheError, check_private
from .compiler import _version, default_cache_dir, find_executable


def _describe_cache(cache_dir):
    if not os.path.isdir(cache_dir):
        return f"{cache_dir} (empty: no such directory yet)"
    try:
        check_private(cache_dir)
    except CacheError as e:
        return f"{cache_dir} (refused: {e})"
    entries = Cache(cache_dir).entries()
    size = 0
    for e in entries:
        for root, _, files in os.walk(os.path.join(cache_dir, e)):
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
                        help="delete the artifacts tcc cached there, and nothing else the "
                             "directory holds")
    args = parser.parse_args(argv)
    cache_dir = os.path.abspath(args.cache_dir or default_cache_dir())
    if args.clear_cache:
        if not os.path.isdir(cache_dir):
            print(f"{cache_dir}: no cache there, nothing to clear")
            return 0
        try:
            removed, kept = Cache(cache_dir).clear()
        except CacheError as e:
            print(f"python -m tcc: error: {e}", file=sys.stderr)
            return 1
        print(f"cleared {cache_dir}: {removed} item(s) tcc wrote removed" +
              (f", {kept} other item(s) left as they were" if kept else ""))
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
