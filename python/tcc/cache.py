"""The artifact cache of tcc.compile and torch.compile(backend="tcc").

A cache is a directory of entries, one per compiled program: <key>/model.so
and <key>/entry.json, which records the SHA-256 of model.so. Loading an
artifact runs its code (dlopen runs its constructors), so the cache trusts
nothing it did not write itself:

- the directory is private: created 0700, and refused when another user
  (root aside) owns it or others may write it, as ssh and pip refuse theirs;
- keys are 32 lowercase hex digits (what tcc.compiler computes), never paths;
- an entry is used only when its model.so has the hash entry.json recorded,
  checked before every load; a damaged or replaced entry is a miss, removed
  and compiled again;
- entries are written in a private temporary directory and renamed into
  place (another process sees a whole entry or none);
- a cache it cannot write still serves its hits; a miss is then compiled
  into a temporary directory outside it;
- clear() removes what tcc wrote and nothing else.
"""
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time

_KEY = re.compile(r"[0-9a-f]{32}")
# Temporary entries a killed compile left behind are removed after this.
_STALE_SECONDS = 3600


from . import TccError


class CacheError(TccError):
    """A cache directory tcc refuses to use (or to clear)."""


def is_key(text):
    """Whether `text` is a cache key (and so a safe entry name)."""
    return isinstance(text, str) and _KEY.fullmatch(text) is not None


def file_sha256(path):
    """The SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_private(path):
    """A CacheError unless `path` is a directory that only this user (or
    root) may write."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise CacheError(f"cache {path}: {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise CacheError(f"cache {path} is not a directory")
    if st.st_uid not in (os.getuid(), 0):
        raise CacheError(f"cache {path} belongs to another user (uid {st.st_uid}): an artifact "
                         "there runs its code when loaded; use a cache of your own "
                         "(TCC_CACHE_DIR or cache_dir=)")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheError(f"cache {path} may be written by other users (mode "
                         f"{stat.S_IMODE(st.st_mode):o}): an artifact planted there would run "
                         f"its code when loaded; make it private (chmod 700 {path}) or use "
                         "another")


class Cache:
    """One cache directory (see the module's documentation)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        if not os.path.exists(self.path):
            parent = os.path.dirname(self.path)
            os.makedirs(parent, exist_ok=True)
            try:
                os.mkdir(self.path, 0o700)
            except FileExistsError:
                pass
        check_private(self.path)

    @property
    def writable(self):
        return os.access(self.path, os.W_OK | os.X_OK)

    def entry(self, key):
        if not is_key(key):
            raise CacheError(f"{key!r} is not a cache key")
        return os.path.join(self.path, key)

    def lookup(self, key):
        """The verified model.so of `key`, or None. An entry whose model.so
        does not have the recorded hash (damaged, or replaced by another
        file) is removed where the cache is writable."""
        entry = self.entry(key)
        so = os.path.join(entry, "model.so")
        try:
            with open(os.path.join(entry, "entry.json")) as f:
                recorded = json.load(f).get("sha256")
            if isinstance(recorded, str) and os.path.isfile(so) and file_sha256(so) == recorded:
                return so
        except (OSError, ValueError, AttributeError):
            pass
        if os.path.lexists(entry) and self.writable:
            self._remove(entry)
        return None

    def store(self, key, fill):
        """Writes the entry of `key`: `fill(directory)` writes model.so (and
        whatever else) into a private temporary directory, which is then
        renamed into place with entry.json (the hash of model.so and
        `fill`'s returned dict). Returns the entry's model.so; where the
        cache cannot be written, a model.so in a temporary directory of its
        own (not cached)."""
        entry = self.entry(key)
        base = self.path if self.writable else None
        if base:
            self._remove_stale()
        work = tempfile.mkdtemp(prefix=f".{key}.", dir=base)
        try:
            info = fill(work) or {}
            so = os.path.join(work, "model.so")
            info["sha256"] = file_sha256(so)
            with open(os.path.join(work, "entry.json"), "w") as f:
                json.dump(info, f, indent=1)
            if not base:
                return so  # the caller's to keep: not in the cache
            try:
                os.rename(work, entry)
            except OSError:
                found = self.lookup(key)  # a concurrent compile that won
                if found is None:
                    raise
                return found
            return os.path.join(entry, "model.so")
        finally:
            if base and os.path.isdir(work):
                shutil.rmtree(work, ignore_errors=True)

    def write_file(self, name, text):
        """An atomic write of a small file of the cache (best effort: a cache
        that cannot be written keeps what it has)."""
        path = os.path.join(self.path, name)
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        except OSError:
            pass

    def entries(self):
        return sorted(e for e in os.listdir(self.path) if is_key(e))

    def clear(self):
        """Removes the entries, trace indexes and files tcc wrote; leaves
        anything else. Returns (removed, kept) counts."""
        removed = kept = 0
        for name in os.listdir(self.path):
            path = os.path.join(self.path, name)
            ours = (is_key(name) or name in ("traces", "tcc-version") or
                    (name.startswith(".") and is_key(name[1:33])) or
                    (name.endswith(".tmp") and not os.path.isdir(path)))
            if ours:
                self._remove(path)
                removed += 1
            else:
                kept += 1
        return removed, kept

    def _remove(self, path):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.remove(path)
            except OSError:
                pass

    def _remove_stale(self):
        """Temporary entries of compiles killed long ago."""
        now = time.time()
        for name in os.listdir(self.path):
            if name.startswith(".") and is_key(name[1:33]):
                path = os.path.join(self.path, name)
                try:
                    if now - os.lstat(path).st_mtime > _STALE_SECONDS:
                        self._remove(path)
                except OSError:
                    pass
