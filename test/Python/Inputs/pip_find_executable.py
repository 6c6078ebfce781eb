"""Prints where the imported tcc package lives and the executable it finds
(or the TccError that says how to point it at one)."""
import tcc

try:
    print("package:", tcc.__file__, "executable:", tcc.find_executable())
except tcc.TccError as e:
    print("TccError:", e)
