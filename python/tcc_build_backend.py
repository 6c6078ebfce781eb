"""The PEP 517 build backend of the tcc Python package: the standard library
only, so that `pip install ./python` works offline.

Why not setuptools: setuptools before 70.1 builds wheels only with the
separate `wheel` package, which Debian's and pyenv's Pythons do not ship, and
an offline machine cannot fetch. The package is pure Python (the loader uses
ctypes), so a wheel is a zip of tcc/*.py and its metadata, written here from
pyproject.toml's [project] table (read with tomllib, Python 3.11+, or tomli).

Hooks: build_wheel, build_editable (PEP 660: a .pth naming this directory, so
an editable install also finds <repo>/build/bin/tcc), build_sdist,
prepare_metadata_for_build_wheel/editable, get_requires_for_build_* (none).
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = "tcc"


def _project():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise RuntimeError("building the tcc package needs Python 3.11+ "
                               "(tomllib) or the tomli package") from None
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}", f"Summary: {project['description']}"]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    for requirement in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {requirement}")
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for requirement in requirements:
            lines.append(f'Requires-Dist: {requirement}; extra == "{extra}"')
    readme = project.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(_HERE, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _entry_points(project):
    out = []
    for group, entries in project.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out.extend(f"{name} = {target}" for name, target in entries.items())
        out.append("")
    return "\n".join(out)


def _dist_info_files(project):
    name = f"{project['name']}-{project['version']}.dist-info"
    files = {f"{name}/METADATA": _metadata(project),
             f"{name}/WHEEL": ("Wheel-Version: 1.0\nGenerator: tcc_build_backend\n"
                               "Root-Is-Purelib: true\nTag: py3-none-any\n"),
             f"{name}/entry_points.txt": _entry_points(project)}
    return name, {path: text.encode() for path, text in files.items()}


def _package_files():
    """tcc/*.py, in a fixed order."""
    directory = os.path.join(_HERE, _PACKAGE)
    files = {}
    for entry in sorted(os.listdir(directory)):
        if entry.endswith(".py"):
            with open(os.path.join(directory, entry), "rb") as f:
                files[f"{_PACKAGE}/{entry}"] = f.read()
    return files


def _write_wheel(wheel_directory, files):
    project = _project()
    dist_info, meta = _dist_info_files(project)
    files = dict(files, **meta)
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{project['name']}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data, zipfile.ZIP_DEFLATED)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # The source directory on sys.path: tcc is imported from python/tcc.
    return _write_wheel(wheel_directory, {"tcc_editable.pth": (_HERE + "\n").encode()})


def _prepare_metadata(metadata_directory):
    dist_info, meta = _dist_info_files(_project())
    for path, data in meta.items():
        target = os.path.join(metadata_directory, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    return dist_info


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{project['name']}-{project['version']}"
    sources = {"pyproject.toml": None, "README.md": None, "tcc_build_backend.py": None}
    sources.update({path: data for path, data in _package_files().items()})
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        def add(path, data):
            info = tarfile.TarInfo(f"{base}/{path}")
            info.size, info.mode = len(data), 0o644
            sdist.addfile(info, io.BytesIO(data))
        for path, data in sources.items():
            if data is None:
                with open(os.path.join(_HERE, path), "rb") as f:
                    data = f.read()
            add(path, data)
        add("PKG-INFO", _metadata(project).encode())
    return name
