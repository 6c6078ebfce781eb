"""Prints the PTX text of the first gpu.binary in the MLIR read from stdin."""
import re
import sys

text = sys.stdin.read()
m = re.search(r'gpu\.binary @\w+\s*\[#gpu\.object<#nvvm\.target<[^>]*>, (?:properties = \{[^}]*\}, )?(?:assembly = )?"((?:[^"\\]|\\.)*)"', text)
if not m:
    sys.exit("no gpu.binary with PTX found")
raw = m.group(1)
# MLIR escapes: \0A newline, \09 tab, \22 quote, \5C backslash (two hex digits).
sys.stdout.write(re.sub(r'\\([0-9A-Fa-f]{2})', lambda h: chr(int(h.group(1), 16)), raw))
