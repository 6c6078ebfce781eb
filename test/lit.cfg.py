# -*- Python -*- lit configuration for tcc: FileCheck tests of the importer and
# every pass, tool tests, and end-to-end numerics against PyTorch's outputs.
import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "tcc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tcc_obj_root, "test")

config.substitutions.append(("%samples", os.path.join(config.tcc_src_root, "samples")))
# The Python that runs lit has numpy (scripts/setup.sh); used by fixture-mutating tests.
config.substitutions.append(("%python", config.python_executable or sys.executable))
config.substitutions.append(("%tcc_src", config.tcc_src_root))
config.substitutions.append(("%tcc_bin", os.path.join(config.tcc_tools_dir, "tcc")))

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH"])
llvm_config.use_default_substitutions()
tool_dirs = [config.tcc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tcc", "tcc-opt", "tcc-unit-tests"], tool_dirs)
llvm_config.with_environment("PATH", config.tcc_tools_dir, append_path=True)
# not, count, split-file and friends.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# A C compiler is needed by the C ABI sample test.
if shutil.which("cc"):
    config.available_features.add("cc")

# CMake and Ninja build samples/cmake_app against an installed tcc.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
config.substitutions.append(("%tcc_build", config.tcc_obj_root))

# script(1) (util-linux) runs a command on a pseudo-terminal: tcc compile's
# progress line is drawn only there.
if shutil.which("script"):
    config.available_features.add("script")

# Debian's chromium (scripts/setup.sh) renders tcc explain's HTML report headless.
if shutil.which("chromium"):
    config.available_features.add("chromium")

# A CPU with VNNI: only there does tcc_cpu_qconv2d run oneDNN's int8 kernels
# (without it their 16-bit pairwise sums saturate, and tcc's loops run).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = set(cpuinfo.read().split())
except OSError:
    flags = set()
if flags & {"avx512_vnni", "avx_vnni"}:
    config.available_features.add("cpu-vnni")

# nm lists an artifact's undefined symbols (binutils; llvm-nm reads the same).
if shutil.which("nm"):
    config.available_features.add("nm")

# PyTorch, for the Python loader's tests: %torch_python is the first Python
# that has it of TCC_TORCH_PYTHON (scripts/test.sh sets it to the environment
# scripts/setup_torch.sh makes), lit's, and python3 on PATH.
import subprocess
for candidate in [os.environ.get("TCC_TORCH_PYTHON"), config.python_executable or sys.executable,
                  shutil.which("python3")]:
    if candidate and subprocess.call([candidate, "-c", "import torch, numpy"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("torch")
        config.substitutions.append(("%torch_python", candidate))
        # PyTorch's operator database (the operator sweep) imports expecttest.
        if subprocess.call([candidate, "-c", "import expecttest"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
            config.available_features.add("opinfo")
        break
