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

# Several processes compiling the same program at once: each gets a verified
# artifact (the entry's, whichever process won the rename), and no temporary
# directory is left behind.
RACE_KEY = "fedcba9876543210fedcba9876543210"
race = os.path.join(root, "race")
racer = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
from tcc.cache import Cache
def fill(work):
    time.sleep(0.2)  # the compile: long enough for the others to start theirs
    with open(os.path.join(work, "model.so"), "wb") as f:
        f.write(b"\x7fELF from process " + sys.argv[3].encode())
so = Cache(sys.argv[2]).store("%s", fill)
print(so, open(so, "rb").read().decode(errors="replace"))
""" % RACE_KEY
procs = [subprocess.Popen([sys.executable, "-c", racer, sys.argv[1], race, str(i)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
         for i in range(8)]
results = [p.communicate() + (p.returncode,) for p in procs]
winner = Cache(race).lookup(RACE_KEY)
print("racers ok:", all(rc == 0 and out.split(" ", 1)[0] == winner
                        for out, _, rc in results),
      "one artifact:", len({out for out, _, _ in results}) == 1,
      "left:", sorted(os.listdir(race)) == [RACE_KEY],
      "errors:", [err for _, err, rc in results if rc != 0][:1])

# Another user (a real process of uid 65534, forked where this test runs as
# root) can neither plant an entry in this user's cache nor hand it a cache
# of its own. Under /tmp, so that the other user can reach the directories.
def as_nobody(action):
    """action() in a child process of uid 65534; what it printed."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            os.setgid(65534)
            os.setuid(65534)
            out = action()
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            out = f"error {type(e).__name__}"
        os.write(wr, out.encode())
        os._exit(0)
    os.close(wr)
    with os.fdopen(rd) as f:
        out = f.read()
    os.waitpid(pid, 0)
    return out


if os.geteuid() == 0:
    import shutil
    import tempfile
    shared = tempfile.mkdtemp(prefix="tcc-cache-test.", dir="/tmp")
    os.chmod(shared, 0o755)
    try:
        mine = Cache(os.path.join(shared, "mine"))
        mine.store(KEY, fill)

        def plant():
            os.listdir(shared)  # reachable: a refusal below is the cache's mode
            try:
                os.mkdir(os.path.join(mine.path, "0" * 32))
                return "planted"
            except OSError as e:
                return f"refused {e.errno}"
        print("other user plants:", as_nobody(plant))
        theirs = os.path.join(shared, "theirs")
        os.mkdir(theirs)
        os.chmod(theirs, 0o777)
        print("they made theirs:", as_nobody(lambda: oct(stat.S_IMODE(os.stat(
            Cache(os.path.join(theirs, "c")).path).st_mode))))
        try:
            Cache(os.path.join(theirs, "c"))
            print("their cache: used")
        except CacheError as e:
            print("their cache refused:", "belongs to another user" in str(e))
    finally:
        shutil.rmtree(shared, ignore_errors=True)
else:  # not root: no second user to be; the chown case above stands in
    print("other user plants: refused 13")
    print("they made theirs: 0o700")
    print("their cache refused: True")
