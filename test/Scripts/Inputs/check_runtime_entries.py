"""The runtime entries that generated code calls are named once, in
include/tcc/Runtime/RuntimeEntries.def (the call builders use its EntryId, the
runtime's prototypes are checked against it): no other source file of the
compiler spells an entry's name as a string literal, and no entry is listed
twice."""
import os
import re
import sys

root = sys.argv[1]
contract = "include/tcc/Runtime/RuntimeEntries.def"
listed = re.findall(r"^TCC_RUNTIME_ENTRY\((\w+),", open(os.path.join(root, contract)).read(),
                    re.M)
problems = [f"{n} listed twice" for n in sorted(set(listed)) if listed.count(n) > 1]
literal = re.compile(r'"(' + "|".join(map(re.escape, listed)) + r')"')
for d in ("lib", "dialects", "include", "tools"):
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in sorted(files):
            if not f.endswith((".cpp", ".h", ".td", ".def")):
                continue
            path = os.path.join(dirpath, f)
            for lineno, line in enumerate(open(path, errors="replace"), 1):
                for m in literal.finditer(line):
                    problems.append(f"{os.path.relpath(path, root)}:{lineno} spells \"{m.group(1)}\"")
for p in problems:
    print("error:", p)
print(f"runtime entries: {len(listed)} listed, {len(problems)} problems")
sys.exit(1 if problems else 0)
