"""python_cache.py PYTHON_DIR DIR: tcc's artifact cache (tcc.cache, no torch
needed) against a hostile or careless neighbour: a private directory, entries
checked by hash before use, keys that are never paths, a clear that removes
only what tcc wrote."""
import json
import os
import stat
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
from tcc.cache import Cache, CacheError  # noqa: E402

root = sys.argv[2]
KEY = "0123456789abcdef0123456789abcdef"


def fill(work):
    with open(os.path.join(work, "model.so"), "wb") as f:
        f.write(b"\x7fELF an artifact")
    return {"tcc": "test"}


cache = Cache(os.path.join(root, "cache"))
print("created mode:", oct(stat.S_IMODE(os.stat(cache.path).st_mode)))
so = cache.store(KEY, fill)
print("hit:", cache.lookup(KEY) == so)

# A model.so replaced after the entry was written (another model's, or a
# planted library): a miss, and the entry goes.
with open(so, "wb") as f:
    f.write(b"\x7fELF something else")
print("replaced artifact:", cache.lookup(KEY), "entry left:", os.path.exists(os.path.dirname(so)))
# A damaged entry.json: a miss too.
so = cache.store(KEY, fill)
with open(os.path.join(os.path.dirname(so), "entry.json"), "w") as f:
    f.write("{not json")
print("damaged entry:", cache.lookup(KEY))

# Keys are entry names, never paths.
for bad in ("../" + KEY[3:], "/etc/passwd", KEY.upper(), KEY + "0"):
    try:
        cache.lookup(bad)
        print("accepted", bad)
    except CacheError as e:
        print("refused key:", e)

# A directory others may write is refused before anything is loaded.
os.chmod(cache.path, 0o777)
try:
    Cache(cache.path)
except CacheError as e:
    print("refused:", str(e).split(":")[0], "-", "mode 777" in str(e))
os.chmod(cache.path, 0o700)
if os.getuid() == 0:  # one owned by another user (root can make one)
    os.chown(cache.path, 65534, 65534)
    try:
        Cache(cache.path)
    except CacheError as e:
        print("refused other owner:", "belongs to another user" in str(e))
    os.chown(cache.path, 0, 0)
else:
    print("refused other owner: True")

# Clearing removes what tcc wrote and leaves the rest.
cache.store(KEY, fill)
cache.write_file("tcc-version", "tcc test\n")
cache.write_file(os.path.join("traces", KEY + ".json"), json.dumps({"program": KEY}))
os.mkdir(os.path.join(cache.path, "." + KEY + ".abc123"))  # a killed compile's
with open(os.path.join(cache.path, "notes.txt"), "w") as f:
    f.write("mine")
os.mkdir(os.path.join(cache.path, "photos"))
print("cleared (removed, kept):", cache.clear(), sorted(os.listdir(cache.path)))

# python -m tcc --clear-cache on a directory holding other things (a home
# directory named by mistake) removes none of them.
home = os.path.join(root, "home")
os.makedirs(os.path.join(home, "docs"), mode=0o700)
os.chmod(home, 0o700)
with open(os.path.join(home, "docs", "thesis.tex"), "w") as f:
    f.write("years of work")
r = subprocess.run([sys.executable, "-m", "tcc", "--cache-dir", home, "--clear-cache"],
                   capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=sys.argv[1]))
print("clear-cache:", r.stdout.strip().replace(home, "HOME"), "|",
      os.path.exists(os.path.join(home, "docs", "thesis.tex")))
