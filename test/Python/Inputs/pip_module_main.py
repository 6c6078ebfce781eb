"""Runs `python -m tcc --cache-dir DIR` (a lit RUN line cannot spell the
module's name: lit substitutes the word with the tcc executable's path)."""
import runpy
import sys

sys.argv = ["python -m tcc", "--cache-dir", sys.argv[1]]
runpy.run_module("tcc", run_name="__main__")
