"""load_damaged.py PYTHON_DIR MODEL.so...: tcc.load each model (the Python
loader, without torch), printing the TccError of each that cannot load."""
import sys

sys.path.insert(0, sys.argv[1])
import tcc  # noqa: E402

for path in sys.argv[2:]:
    try:
        tcc.load(path)
        print("loaded", path)
    except tcc.TccError as e:
        print("TccError:", e)
