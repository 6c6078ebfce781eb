"""tcc.compile: export a PyTorch module, compile it with the tcc executable, load it.

    compiled = tcc.compile(module, (x,))
    y = compiled(x)            # the module's own outputs structure, on the inputs' device

The module is exported with torch.export, written to a .pt2 and compiled with
`tcc compile --external-weights`; the artifact is loaded and the module's own
parameters, buffers and lifted tensor constants are bound to it by name (CPU
tensors without a copy). Artifacts are cached on disk, keyed by a hash of the
exported program (its graph code, signature, input metadata and symbol ranges;
not the weight values, which are bound at load time), the options, torch's
version and `tcc --version`: a second process compiling the same module runs
torch.export and loads the cached artifact, nothing more.
"""
import functools
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import tempfile

from . import TccError, load

# Bumped when what a cache entry holds or how its key is computed changes.
_CACHE_FORMAT = 1


class CompileError(TccError):
    """`tcc compile` refused the program. The message is tcc's own: for an
    unsupported operator it names the operator and the Python line.

    Attributes: `message` (tcc's stderr), `returncode` (1: the input is
    unsupported; 3: an internal error in tcc), `command` (the command line)."""

    def __init__(self, message, returncode=1, command=None):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.command = command


def _source_tree_executable():
    """<repo>/build/bin/tcc, where this package is run from the source tree
    (python/tcc) or installed in editable mode."""
    package = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(package)), "build", "bin", "tcc")


def _is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


@functools.lru_cache(maxsize=None)
def _version_of(path, mtime_ns, size):
    """`tcc --version`'s first line, or None where `path` is not this tcc
    (another program named tcc, such as the Tiny C Compiler)."""
    try:
        result = subprocess.run([path, "--version"], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = result.stdout.splitlines()[0] if result.stdout else ""
    if result.returncode != 0 or not first.startswith("tcc ") or "(commit" not in first:
        return None
    return first


def _version(path):
    st = os.stat(path)
    return _version_of(path, st.st_mtime_ns, st.st_size)


def find_executable():
    """The tcc executable: $TCC_BIN, else `tcc` on PATH, else the build tree
    (<repo>/build/bin/tcc, for a package run from the source tree or installed
    with `pip install -e`). A plain `pip install ./python` copies the package
    away from the source tree, so it finds tcc through TCC_BIN or PATH only."""
    env = os.environ.get("TCC_BIN")
    if env:
        if not _is_executable(env):
            raise TccError(f"TCC_BIN={env}: no such executable")
        if _version(env) is None:
            raise TccError(f"TCC_BIN={env}: `{env} --version` does not print tcc's version")
        return os.path.abspath(env)
    skipped = ""
    on_path = shutil.which("tcc")
    if on_path:
        if _version(on_path) is not None:
            return on_path
        skipped = f" ({on_path} on PATH is another program: its --version is not tcc's)"
    tree = _source_tree_executable()
    if _is_executable(tree) and _version(tree) is not None:
        return tree
    raise TccError(
        "cannot find the tcc executable" + skipped + ": set TCC_BIN=/path/to/tcc or put "
        "the directory holding tcc (the build's bin/, e.g. build/bin after "
        "scripts/build.sh) on PATH; only a package run from the source tree or "
        f"installed with `pip install -e ./python` also looks in the build tree ({tree})")


from .cache import Cache, is_key  # noqa: E402


def default_cache_dir():
    """$TCC_CACHE_DIR, else ~/.cache/tcc (under $XDG_CACHE_HOME where set)."""
    env = os.environ.get("TCC_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tcc")


def _program_text(ep):
    """What identifies an exported program for the cache: the code of its
    graph and subgraphs, its signature, the metadata of every placeholder
    (shape, dtype, strides; weights included, not their values), the
    symbols' ranges and the input/output tree structure. Stack traces are
    left out (moving the model's source by a line reuses the artifact), and
    so are the placeholders' devices: one artifact of target "cpu,cuda" runs
    on either, so a program exported with CPU tensors finds the artifact a
    CUDA export compiled and the other way round (a device named in the code,
    as in torch.arange(..., device="cuda"), is part of the code)."""
    import torch
    parts = []
    for name, sub in ep.graph_module.named_modules():
        if isinstance(sub, torch.fx.GraphModule):
            parts.append(f"module {name}:\n{sub.code}")
    for node in ep.graph.nodes:
        if node.op != "placeholder":
            continue
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            parts.append(f"{node.name}: {val.dtype} {tuple(val.shape)} {tuple(val.stride())}")
        else:
            parts.append(f"{node.name}: {type(val).__name__} {val!r}")
    parts.append(str(ep.graph_signature))
    parts.append(repr(sorted((str(k), str(v)) for k, v in ep.range_constraints.items())))
    parts.append(str(ep.call_spec.in_spec))
    parts.append(str(ep.call_spec.out_spec))
    return "\n".join(parts)


def _torch_release():
    """torch's version without its build suffix (2.11.0 for 2.11.0+cu130): the
    exported program does not depend on which CUDA torch was built for."""
    import torch
    return torch.__version__.split("+")[0]


def _cache_key(ep, tcc_version, options):
    h = hashlib.sha256()
    for part in (f"tcc-cache {_CACHE_FORMAT}", tcc_version, f"torch {_torch_release()}",
                 json.dumps(options, sort_keys=True), _program_text(ep)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


class _Compiler:
    """The tcc executable and the version string the cache keys name. Where
    no tcc is found, the version recorded in the cache directory by the last
    compile into it (<cache_dir>/tcc-version): artifacts another machine
    compiled (a GPU server without LLVM, say) are then found and loaded; a
    program not among them raises the not-found error."""

    def __init__(self, cache_dir):
        self.not_found = None
        try:
            self.executable = find_executable()
            self.version = _version(self.executable)
        except TccError as e:
            self.executable, self.not_found = None, e
            try:
                with open(os.path.join(cache_dir, "tcc-version")) as f:
                    self.version = f.read().strip()
            except OSError:
                raise e from None

    def require(self, cache_dir):
        if self.executable is None:
            raise TccError(f"{self.not_found} (the cache {cache_dir} has no artifact for this "
                           f"program; it holds artifacts of {self.version})")
        return self.executable

    def record(self, cache):
        """Writes the version beside the artifacts (see above)."""
        cache.write_file("tcc-version", self.version + "\n")


def compile_exported(ep, target="cpu,cuda", precision="fp32", cache_dir=None, compiler=None):
    """Compiles an ExportedProgram with `tcc compile --external-weights`, or
    finds it in the cache; returns the path of its model.so and whether tcc ran."""
    import torch
    options = {"target": target, "precision": precision}
    cache = Cache(cache_dir or default_cache_dir())
    compiler = compiler or _Compiler(cache.path)
    key = _cache_key(ep, compiler.version, options)
    # Only an artifact whose hash the cache recorded is loaded (tcc.cache).
    so = cache.lookup(key)
    if so is not None:
        return so, False
    exe = compiler.require(cache.path)

    def fill(work):
        pt2 = os.path.join(work, "model.pt2")
        torch.export.save(ep, pt2)
        command = [exe, "compile", pt2, "--external-weights", "--target", target,
                   "--precision", precision, "-o", os.path.join(work, "model.so")]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            message = (result.stderr or result.stdout).strip()
            raise CompileError(message or f"tcc compile failed (exit {result.returncode})",
                               result.returncode, command)
        # The weights are bound from the module at load time: neither the
        # archive nor the weights file tcc wrote is kept.
        for name in ("model.pt2", "model.weights.bin"):
            path = os.path.join(work, name)
            if os.path.exists(path):
                os.remove(path)
        return {"options": options, "tcc": compiler.version, "torch": torch.__version__}

    so = cache.store(key, fill)
    compiler.record(cache)
    return so, True


def program_weights(ep):
    """The tensors an exported program reads that are not user inputs, by the
    names tcc's manifest gives them: parameters, buffers (the module's own
    tensors: ep.state_dict holds them, not copies) and lifted tensor constants."""
    import torch
    weights = dict(ep.state_dict)
    for name, value in ep.constants.items():
        if isinstance(value, torch.Tensor):
            weights[name] = value
    return weights


def bind_program_weights(model, weights):
    """Binds `weights` to `model`; a TccError names any weight the manifest
    needs that is not among them. The buffers the program writes (its
    states) are bound in place: calls write the module's own buffers, as
    PyTorch does."""
    missing = [n for n in model.weight_names + model.state_names if n not in weights]
    if missing:
        raise TccError("the compiled model needs weights the exported program does not "
                       "hold: " + ", ".join(missing))
    model.bind_weights({n: weights[n] for n in model.weight_names})
    if model.state_names:
        model.bind_state({n: weights[n] for n in model.state_names})
    return model


# The words of tcc's --target and --precision (tcc/Support/TargetSet.h,
# tcc/Pipelines/Options.h), checked here so that a bad option fails before
# torch.export runs, with the message tcc compile would give.
_TARGETS = ("cpu", "cuda")
_PRECISIONS = ("fp32", "tf32", "bf16")


def _target_error(target):
    """What TargetSet::parse says of `target` ("cpu", "cuda", "cpu,cuda"; spaces
    around a word ignored), or None if tcc takes it."""
    expected = (f"expected {', '.join(_TARGETS)} or several of them separated by commas "
                f"({','.join(_TARGETS)})")
    if not isinstance(target, str) or not target.strip():
        return "no target given; " + expected
    seen = set()
    for word in (w.strip(" \t") for w in target.split(",")):
        if not word:
            return f"empty target in {target!r}; {expected}"
        if word not in _TARGETS:
            return f"unknown target {word!r}; {expected}"
        if word in seen:
            return f"target {word!r} given twice"
        seen.add(word)
    return None


def _check_options(target, precision):
    """A ValueError naming the choices for a target or precision tcc does not take."""
    error = _target_error(target)
    if error:
        raise ValueError(f"target {target!r}: {error}")
    if precision not in _PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {', '.join(_PRECISIONS)}")


class CompiledModule:
    """What tcc.compile returns: called like the module, with the same
    arguments (tensors and the non-tensor values it was compiled with) and the
    same outputs structure; outputs are on the inputs' device.

    `model` is the loaded tcc.Model, `path` its model.so in the cache;
    `exported` and `compiled` say whether this call ran torch.export and
    `tcc compile` (both False on a warm cache). The module's weights are
    bound once: after changing them in place (or where they live on a GPU:
    they were copied to the host when bound), call rebind()."""

    def __init__(self, model, out_spec, example_args, example_kwargs, weights,
                 exported, compiled):
        import torch
        from torch.utils import _pytree as pytree
        self.model = model
        self.path = model.path
        self.exported = exported
        self.compiled = compiled
        self._weights = weights
        self._out_spec = out_spec
        leaves, self._in_spec = pytree.tree_flatten((tuple(example_args),
                                                     dict(example_kwargs)))
        self._tensor_positions = [i for i, v in enumerate(leaves)
                                  if isinstance(v, torch.Tensor)]
        self._constants = {i: v for i, v in enumerate(leaves)
                           if not isinstance(v, torch.Tensor)}
        self._flatten = pytree.tree_flatten
        self._unflatten = pytree.tree_unflatten
        # Positional tensors only: no tree walking of the arguments per call.
        self._plain = (not example_kwargs and len(leaves) == len(example_args)
                       and not self._constants)

    def rebind(self):
        """Binds the module's weights again (after an in-place change)."""
        self.model.bind_weights({n: self._weights[n] for n in self.model.weight_names})
        return self

    def __call__(self, *args, **kwargs):
        if self._plain and not kwargs and len(args) == len(self._tensor_positions):
            outputs = self.model.run_flat(args)
        else:
            leaves, spec = self._flatten((args, kwargs))
            if spec != self._in_spec:
                raise TccError(f"the arguments' structure differs from the example "
                               f"inputs it was compiled for ({spec} vs {self._in_spec})")
            for i, value in self._constants.items():
                if leaves[i] != value:
                    raise TccError(f"argument leaf #{i} was {value!r} when compiled, now "
                                   f"{leaves[i]!r}: non-tensor arguments are constants of "
                                   "the compiled program; compile again for this value")
            outputs = self.model.run_flat([leaves[i] for i in self._tensor_positions])
        return self._unflatten(outputs, self._out_spec)


def _as_module(fn):
    import torch
    if isinstance(fn, torch.nn.Module):
        return fn

    class Function(torch.nn.Module):
        def forward(self, *args, **kwargs):
            return fn(*args, **kwargs)

    # forward with the function's own parameter names where they are plain
    # positional ones, so that dynamic_shapes can name them ({"x": {0: batch}}).
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params]
    if params and all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params) and \
            "self" not in names and "fn" not in names:
        namespace = {"fn": fn}
        joined = ", ".join(names)
        exec(f"def forward(self, {joined}):\n    return fn({joined})\n", namespace)
        Function.forward = namespace["forward"]
    Function.__name__ = getattr(fn, "__name__", "Function")
    module = Function()
    module._tcc_function = fn  # what _trace_key traces (fx does not trace *args)
    return module


# The warm path. torch.export's first call in a process imports torch._dynamo
# and the export machinery (seconds); torch.fx.symbolic_trace does not. A
# module whose symbolic trace succeeds gets a second key, the "trace key": the
# traced code (the operations forward runs, helper functions traced through,
# Python values it reads baked in); every submodule's class and attributes
# (leaf modules such as nn.Linear are not traced into: their configuration is
# in their attributes; functions, such as an activation, by qualified name; a
# module holding an attribute with no stable text has no trace key); the
# names, shapes and dtypes of every tensor the module holds; the example
# inputs' metadata, dynamic_shapes, the options and the versions. It names the
# program key of the artifact compiled for it (cache_dir/traces/<key>.json), so
# a warm call traces, loads and binds, without exporting. A module that does
# not trace (data-dependent control flow, hooks, non-tensor arguments) or has
# no trace key always exports.

_PLAIN = (int, float, bool, str, bytes, type(None))


def _describe(value, torch):
    """A stable text for a module attribute the trace key includes, or None
    where there is none (the module then has no trace key): plain values and
    containers of them, dtypes, named functions and classes (an activation
    such as F.silu held by nn.TransformerEncoderLayer, a leaf module fx does
    not trace into). Lambdas, local functions, partials and other objects
    have no stable text."""
    if isinstance(value, _PLAIN) or isinstance(value, (torch.dtype, torch.device)):
        return repr(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_describe(v, torch) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, (set, frozenset)):
            items.sort()
        return f"{type(value).__name__}({', '.join(items)})"
    if isinstance(value, dict):
        items = [(_describe(k, torch), _describe(v, torch)) for k, v in value.items()]
        if any(k is None or v is None for k, v in items):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(items)) + "}"
    if inspect.isfunction(value) or inspect.isbuiltin(value) or inspect.isclass(value):
        module = getattr(value, "__module__", None) or getattr(
            getattr(value, "__self__", None), "__name__", "")
        qualname = getattr(value, "__qualname__", "")
        if not qualname or "<" in qualname:  # a lambda or a local function
            return None
        return f"{module}.{qualname}"
    return None


_MODULE_INTERNALS = None


def _module_internals(torch):
    """The attributes every nn.Module has (hooks, flags): not part of the key."""
    global _MODULE_INTERNALS
    if _MODULE_INTERNALS is None:
        _MODULE_INTERNALS = frozenset(vars(torch.nn.Module())) - {"training"}
    return _MODULE_INTERNALS


def _tensor_text(t):
    # Not the device: see _program_text.
    return f"{t.dtype} {tuple(t.shape)} {tuple(t.stride())} {t.requires_grad}"


def _dims_text(dynamic_shapes):
    """dynamic_shapes with each Dim written out as its name and range (not
    through its repr, whose form belongs to torch)."""
    from torch.utils import _pytree as pytree

    def is_dim(value):
        return all(hasattr(value, a) for a in ("__name__", "min", "max"))

    def one(value):
        if is_dim(value):
            return f"Dim({value.__name__}, {value.min}, {value.max})"
        return repr(value)
    return str(pytree.tree_map(one, dynamic_shapes, is_leaf=is_dim))


def _trace_key(module, example_args, example_kwargs, dynamic_shapes, options, tcc_version):
    """The trace key of `module` (see above), or None where it has none."""
    import torch
    if example_kwargs or not all(isinstance(a, torch.Tensor) for a in example_args):
        return None
    parts = [f"tcc-trace {_CACHE_FORMAT}", tcc_version, f"torch {_torch_release()}",
             json.dumps(options, sort_keys=True), f"grad {torch.is_grad_enabled()}",
             f"default dtype {torch.get_default_dtype()}"]
    for name, sub in module.named_modules(remove_duplicate=False):
        if (sub._forward_hooks or sub._forward_pre_hooks or sub._state_dict_hooks
                or getattr(sub, "_forward_hooks_with_kwargs", None)):
            return None
        cls = type(sub)
        parts.append(f"module '{name}': {cls.__module__}.{cls.__qualname__}")
        for attr, value in sorted(vars(sub).items()):
            if attr in _module_internals(torch) or attr == "_tcc_function":
                continue
            if isinstance(value, torch.Tensor):
                parts.append(f"  tensor {attr}: {_tensor_text(value)}")
                continue
            text = _describe(value, torch)
            if text is None:  # an attribute that may steer forward: export each time
                return None
            parts.append(f"  {attr} = {text}")
        for attr, value in sub._parameters.items():
            parts.append(f"  parameter {attr}: " + (_tensor_text(value) if value is not None
                                                     else "None"))
        for attr, value in sub._buffers.items():
            parts.append(f"  buffer {attr}: " + (_tensor_text(value) if value is not None
                                                  else "None"))
    try:
        traced = torch.fx.symbolic_trace(getattr(module, "_tcc_function", module))
    except Exception:
        return None
    for name, sub in traced.named_modules():
        if isinstance(sub, torch.fx.GraphModule):
            parts.append(f"traced {name}:\n{sub.code}")
    for i, a in enumerate(example_args):
        parts.append(f"input {i}: {_tensor_text(a)}")
    parts.append("dynamic_shapes " + _dims_text(dynamic_shapes))
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _module_tensor(module, name):
    """The tensor at the dotted attribute path `name` of `module`, or None."""
    import torch
    value = module
    for part in name.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value if isinstance(value, torch.Tensor) else None


def _write_trace_index(cache_dir, trace_key, so, module, weights, names, out_spec):
    """Records the artifact for a trace key, where every weight the model
    binds is the module's own tensor at the path of its name."""
    from torch.utils import _pytree as pytree
    for name in names:
        own, bound = _module_tensor(module, name), weights[name]
        if own is None or (own is not bound and (own.data_ptr() != bound.data_ptr()
                                                 or own.shape != bound.shape
                                                 or own.dtype != bound.dtype)):
            return
    program = os.path.basename(os.path.dirname(so))
    if not is_key(program):
        return  # compiled outside the cache (it could not be written)
    Cache(cache_dir).write_file(
        os.path.join("traces", trace_key + ".json"),
        json.dumps({"program": program, "out_spec": pytree.treespec_dumps(out_spec)}))


def _from_trace_index(cache_dir, trace_key, module):
    """(model, out_spec, weights) from the trace index, or None."""
    from torch.utils import _pytree as pytree
    cache = Cache(cache_dir)
    try:
        with open(os.path.join(cache.path, "traces", trace_key + ".json")) as f:
            index = json.load(f)
        # The program is a key of this cache, never a path; its artifact is
        # loaded only with the hash its entry recorded.
        if not is_key(index.get("program")):
            return None
        so = cache.lookup(index["program"])
        if so is None:
            return None
        out_spec = pytree.treespec_loads(index["out_spec"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    model = load(so)
    weights = {}
    for name in model.weight_names + model.state_names:
        tensor = _module_tensor(module, name)
        if tensor is None:
            return None
        weights[name] = tensor
    bind_program_weights(model, weights)
    return model, out_spec, weights


def compile(module, example_inputs, dynamic_shapes=None, target="cpu,cuda",
            precision="fp32", cache_dir=None, example_kwargs=None):
    """Compiles `module` (a torch.nn.Module or a function of tensors) ahead of
    time with tcc and returns a CompiledModule that is called like it.

    example_inputs: a tuple of the positional arguments (a single tensor is
      taken as a 1-tuple); example_kwargs: keyword arguments, if any.
    dynamic_shapes: torch.export's dynamic_shapes, e.g.
      {"x": {0: torch.export.Dim("batch", min=1, max=1024)}}: they become tcc's
      symbolic dimensions. Give every dynamic dimension a maximum (the
      intermediates are planned for it).
    target: "cpu,cuda" (both paths in one artifact), "cpu" or "cuda".
    precision: the CUDA path's matrix products: "fp32", "tf32" or "bf16".
    cache_dir: where artifacts are cached (default $TCC_CACHE_DIR or ~/.cache/tcc).

    The module is compiled as it is: call module.eval() first for inference.
    Raises CompileError with tcc's message (operator and Python line) when tcc
    refuses the program, TccError when the tcc executable cannot be found."""
    import torch
    _check_options(target, precision)
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    example_kwargs = dict(example_kwargs or {})
    module = _as_module(module)
    cache_dir = os.path.abspath(cache_dir or default_cache_dir())
    options = {"target": target, "precision": precision}
    compiler = _Compiler(cache_dir)
    trace_key = _trace_key(module, example_inputs, example_kwargs, dynamic_shapes, options,
                           compiler.version)
    if trace_key is not None:
        found = _from_trace_index(cache_dir, trace_key, module)
        if found is not None:
            model, out_spec, weights = found
            return CompiledModule(model, out_spec, example_inputs, example_kwargs, weights,
                                  exported=False, compiled=False)
    ep = torch.export.export(module, example_inputs, example_kwargs,
                             dynamic_shapes=dynamic_shapes)
    # Writes into buffers and inputs are honoured: the states are the
    # module's buffers (bind_program_weights), inputs are written through.
    so, compiled = compile_exported(ep, target=target, precision=precision,
                                    cache_dir=cache_dir, compiler=compiler)
    weights = program_weights(ep)
    model = bind_program_weights(load(so), weights)
    if trace_key is not None:
        _write_trace_index(cache_dir, trace_key, so, module, weights,
                           model.weight_names + model.state_names, ep.call_spec.out_spec)
    return CompiledModule(model, ep.call_spec.out_spec, example_inputs, example_kwargs,
                          weights, exported=True, compiled=compiled)
