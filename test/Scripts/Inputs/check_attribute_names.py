"""The attribute names that cross stages are spelled once (issue 40): every
string literal "tcc.<name>" in the compiler's sources (lib/, dialects/,
include/, tools/) either defines the name (a `return "tcc.x"` accessor of a
dialect, or a `constexpr ... = "tcc.x"` constant) or is the only use of that
name, in one file. A name spelled in two files without a definition is
reported with its places. Usage: check_attribute_names.py SOURCE_ROOT"""
import collections
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
literal = re.compile(r'"(tcc\.[a-z_]+)"')
definition = re.compile(r'(return\s+"tcc\.|constexpr[^=]*=\s*"tcc\.)')
uses = collections.defaultdict(list)
definitions = collections.defaultdict(list)
for top in ("lib", "dialects", "include", "tools"):
    for path in sorted((root / top).rglob("*")):
        if path.suffix not in (".cpp", ".h", ".td"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//")[0]
            for name in literal.findall(code):
                if definition.search(code):
                    definitions[name].append(f"{path.relative_to(root)}:{number}")
                else:
                    uses[name].append(f"{path.relative_to(root)}:{number}")
defined = set(definitions)
bad = 0
for name, places in sorted(definitions.items()):
    if len(places) > 1:
        print(f"defined {len(places)} times: {name}: {', '.join(places)}")
        bad += 1
for name, places in sorted(uses.items()):
    files = {p.rsplit(":", 1)[0] for p in places}
    if name in defined:
        print(f"spelled again beside its definition: {name}: {', '.join(places)}")
        bad += 1
    elif len(files) > 1:
        print(f"spelled in {len(files)} files without a definition: {name}: {', '.join(places)}")
        bad += 1
print(f"attribute names: {len(defined)} defined, {bad} spelled out of place or defined twice")
sys.exit(1 if bad else 0)
