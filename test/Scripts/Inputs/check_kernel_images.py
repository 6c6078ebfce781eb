"""Every source file of tcc's kernel library (lib/Runtime/Kernels/*.cu) has its
line in include/tcc/Runtime/KernelImages.def, the one list that the enum, the
loader and the nvcc rules come from, and the list names no file that is
missing; no other file spells the images' tccKernelImage symbols out."""
import os
import re
import sys

root = sys.argv[1]
listed = re.findall(r"^TCC_KERNEL_IMAGE\((\w+),",
                    open(os.path.join(root, "include/tcc/Runtime/KernelImages.def")).read(), re.M)
sources = sorted(f[:-3] for f in os.listdir(os.path.join(root, "lib/Runtime/Kernels"))
                 if f.endswith(".cu"))
problems = [f"{s}.cu has no line in KernelImages.def" for s in sources if s not in listed]
problems += [f"KernelImages.def lists {n}, which has no Kernels/{n}.cu" for n in listed
             if n not in sources]
problems += [f"{n} listed twice" for n in set(listed) if listed.count(n) > 1]
for d in ("lib", "include", "tools"):
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in files:
            if not f.endswith((".cpp", ".h", ".cu")):
                continue
            path = os.path.join(dirpath, f)
            for n in listed:
                if f"tccKernelImage{n}" in open(path, errors="replace").read():
                    problems.append(f"{os.path.relpath(path, root)} spells tccKernelImage{n}")
for p in problems:
    print("error:", p)
print(f"kernel images: {len(listed)} listed, {len(problems)} problems")
sys.exit(1 if problems else 0)
