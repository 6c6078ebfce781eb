"""tcc from Python: compile PyTorch modules and run compiled models on torch tensors.

    import tcc
    compiled = tcc.compile(module, (x,))          # torch.export + tcc compile, cached
    y = compiled(x)
    opt = torch.compile(module, backend="tcc")    # Dynamo backend (tcc.backend)

    model = tcc.load("model.so")                   # an artifact compiled by hand
    y = model(x)                       # CPU or CUDA tensors; no copies
    model.bind_weights(module.state_dict())

tcc.compile and the backend run the `tcc` executable (TCC_BIN, else PATH, else
the build tree beside this package's source); see tcc.find_executable.

Inputs are used in place (their data pointers go straight to the compiled
code); outputs are allocated on the inputs' device. CUDA runs are enqueued on
torch's current stream. A guard violation raises TccError with the manifest's
message, e.g. "input 'x' (#0) dimension 0: expected s77 in [1, 1024], got 1025".

A call costs a few microseconds: everything that depends only on the inputs'
shapes, dtypes and devices (the ctypes tensor arrays, the output shapes and
dtypes) is built once per such signature and reused; a call writes the data
pointers, allocates the outputs with torch.empty and calls
tcc_model_run_on_stream on torch's current stream. The runtime still checks
every guard on every call. CUDA graphs (on by default) are controlled with
Model.cuda_graphs or TCC_CUDA_GRAPHS=0.
"""
import ctypes
import json
import os
import threading

__all__ = ["load", "Model", "TccError", "GuardError", "CompileError", "compile",
           "backend", "find_executable", "CompiledModule"]


class TccError(RuntimeError):
    """A failure reported by the tcc runtime (guard violation, missing weight, ...)."""


class GuardError(TccError):
    """Inputs outside the guard manifest (dtype, rank, a size or a symbol's range)."""


_GUARD_VIOLATION = 2  # TCC_ERROR_GUARD_VIOLATION (include/tcc/runtime.h)


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("device", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.POINTER(ctypes.c_int64))]


_ON_TOKEN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
                             ctypes.POINTER(ctypes.c_int64), ctypes.c_int32)


class _GenerateOptions(ctypes.Structure):
    _fields_ = [("max_new_tokens", ctypes.c_int32), ("eos_token", ctypes.c_int64),
                ("top_k", ctypes.c_int32), ("temperature", ctypes.c_float),
                ("seed", ctypes.c_uint64), ("device", ctypes.c_int32),
                ("stream", ctypes.c_void_p), ("on_token", _ON_TOKEN),
                ("user", ctypes.c_void_p)]


class _GenerateStats(ctypes.Structure):
    _fields_ = [("prompt_calls", ctypes.c_int32), ("decode_calls", ctypes.c_int32),
                ("prompt_ms", ctypes.c_double), ("decode_ms", ctypes.c_double)]


# tcc_dtype codes (include/tcc/runtime.h, tcc::DType).
_DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                "int16", "int8", "uint8", "bool", "complex64", "complex128"]
_CPU, _CUDA = 0, 1


def _torch():
    import torch  # imported lazily: the loader itself needs only ctypes
    return torch


def _dtype_code(t):
    name = str(t.dtype).replace("torch.", "")
    if name not in _DTYPE_NAMES:
        raise TccError(f"tensor dtype {t.dtype} is not supported by tcc")
    return _DTYPE_NAMES.index(name)


def _damage(path):
    """Why `path` is not an intact 64-bit ELF shared object ("" when it is).

    A file cut short (a half-copied artifact) makes glibc fault with SIGBUS
    while dlopen maps segments past its end, killing the process: every
    segment and table the headers name must lie inside the file first (as
    tcc run and tcc inspect check, tools/tcc/ModelLibrary.cpp)."""
    import struct
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            header = f.read(64)
            if len(header) < 64:
                return f"the file is too short to be a shared object ({size} bytes)"
            if header[:4] != b"\x7fELF":
                return "not an ELF shared object"
            if header[4] != 2 or struct.unpack_from("<H", header, 16)[0] != 3:  # ELFCLASS64, ET_DYN
                return "not a 64-bit ELF shared object"
            phoff, shoff = struct.unpack_from("<QQ", header, 32)
            phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", header, 54)
            cut = f"the file is truncated or damaged ({size} bytes; "
            if phentsize != 56 or phoff + phnum * 56 > size:
                return cut + "its program headers lie past the end)"
            if shoff and shoff + shnum * shentsize > size:
                return cut + "its section headers lie past the end)"
            f.seek(phoff)
            for i in range(phnum):
                _, _, offset, _, _, filesz = struct.unpack("<IIQQQQ", f.read(56)[:40])
                if filesz and offset + filesz > size:
                    return cut + f"segment {i} needs {offset + filesz})"
    except OSError as e:
        return f"cannot read it: {e.strerror}"
    return ""


def _check_tensor(value, what, torch):
    """A TccError naming `what` unless `value` is a dense torch tensor."""
    if not isinstance(value, torch.Tensor):
        kind = f"{type(value).__module__}.{type(value).__name__}"
        hint = " (torch.from_numpy converts it)" if kind == "numpy.ndarray" else ""
        raise TccError(f"{what} is a {kind}, not a torch.Tensor{hint}")
    if value.layout != torch.strided:
        raise TccError(f"{what} is a {value.layout} tensor; tcc reads dense tensors "
                       "(.to_dense() converts it)")


def _dense(t):
    """`t` with its negation/conjugation applied and its bytes contiguous."""
    return t.resolve_neg().resolve_conj().contiguous()


class Model:
    """One instance of a compiled model (its own arena and weight bindings)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        why = _damage(self.path)
        if why:
            raise TccError(f"{path}: cannot load: {why}")
        lib = ctypes.CDLL(self.path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        self._lib = lib
        lib.tcc_last_error.restype = ctypes.c_char_p
        lib.tcc_model_create.restype = ctypes.c_void_p
        lib.tcc_model_destroy.argtypes = [ctypes.c_void_p]
        lib.tcc_model_manifest.restype = ctypes.c_char_p
        lib.tcc_model_manifest.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.tcc_model_bind_weight.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                              ctypes.c_void_p, ctypes.c_size_t]
        lib.tcc_model_output_sizes.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.c_int32,
            ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)), ctypes.c_int32]
        lib.tcc_model_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.c_int32,
                                      ctypes.POINTER(_Tensor), ctypes.c_int32]
        lib.tcc_model_run_on_stream.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.c_int32,
            ctypes.POINTER(_Tensor), ctypes.c_int32, ctypes.c_void_p]
        lib.tcc_model_set_option.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64]
        lib.tcc_model_get_option.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_int64)]
        handle = lib.tcc_model_create()
        if not handle:
            raise TccError(self._last_error())
        self._handle = handle
        self._handle_arg = ctypes.c_void_p(handle)  # passed as is on every call
        self.manifest = json.loads(lib.tcc_model_manifest(handle, None).decode())
        self._bound = {}  # keeps bound weight tensors alive
        self._plans = {}  # input signature -> _CallPlan
        # A plan's ctypes arrays are shared by the calls of its signature:
        # threads calling one instance take turns (the runtime serializes
        # them anyway).
        self._lock = threading.Lock()
        self._num_inputs = len(self.manifest["inputs"])
        self._output_dtype_names = [o["dtype"] for o in self.manifest["outputs"]]
        self._written_inputs = [i for i, t in enumerate(self.manifest["inputs"])
                                if t.get("written")]

    def _last_error(self):
        msg = self._lib.tcc_last_error()
        return msg.decode() if msg else "unknown tcc error"

    def _check(self, status):
        if status != 0:
            raise TccError(self._last_error())

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.tcc_model_destroy(handle)
            self._handle = None

    @property
    def cuda_graphs(self):
        """Whether CUDA runs replay captured CUDA graphs (tcc_model_set_option)."""
        return bool(self.option("cuda_graphs"))

    @cuda_graphs.setter
    def cuda_graphs(self, enabled):
        self._check(self._lib.tcc_model_set_option(self._handle, b"cuda_graphs",
                                                   1 if enabled else 0))

    def option(self, name):
        """An option or counter of tcc_model_get_option, e.g. "cuda_graph_replays"."""
        value = ctypes.c_int64()
        self._check(self._lib.tcc_model_get_option(self._handle, name.encode(),
                                                   ctypes.byref(value)))
        return value.value

    @property
    def profiling(self):
        """Whether runs record per-kernel times (an artifact compiled with
        `tcc compile --profile`; tcc_model_set_profiling). Turning it on
        clears the times, turns CUDA graphs off and makes CUDA runs wait for
        their stream; turning it off restores the graphs."""
        return bool(getattr(self, "_profiling", False))

    @profiling.setter
    def profiling(self, enabled):
        fn = getattr(self._lib, "tcc_model_set_profiling", None)
        if fn is None:
            raise TccError(f"{self.path}: its runtime predates profiling "
                           "(recompile it with tcc compile --profile)")
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        self._check(fn(self._handle, 1 if enabled else 0))
        self._profiling = bool(enabled)

    def reset_profile(self):
        """Clears the accumulated kernel times."""
        self._lib.tcc_model_reset_profile.argtypes = [ctypes.c_void_p]
        self._check(self._lib.tcc_model_reset_profile(self._handle))

    def profile(self, device=None):
        """The kernel times accumulated while `profiling` was on, as `tcc run
        --profile-json` writes them: {"format", "version", "model", "device",
        "calls" (runs profiled), "kernels": [{"index", "kind", "detail",
        "sources", "lines", "calls", "mean_ms", "total_ms"}]} in kernel order
        (the manifest's "kernels", as `tcc inspect` lists them). `device` is
        the text recorded as "device" (e.g. "cuda NVIDIA H100"; default: "?")."""
        fn = self._lib.tcc_model_profile
        fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                       ctypes.POINTER(ctypes.c_int64), ctypes.c_int32,
                       ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)]
        n = ctypes.c_int32()
        runs = ctypes.c_int64()
        self._check(fn(self._handle, None, None, 0, ctypes.byref(n), ctypes.byref(runs)))
        total = (ctypes.c_double * n.value)()
        calls = (ctypes.c_int64 * n.value)()
        self._check(fn(self._handle, total, calls, n.value, ctypes.byref(n), ctypes.byref(runs)))
        listed = self.manifest.get("kernels", [])
        kernels = []
        for k in range(n.value):
            info = listed[k] if k < len(listed) else {}
            kernels.append({"index": k, "kind": info.get("kind", ""),
                            "detail": info.get("detail", ""),
                            "sources": info.get("sources", []), "lines": info.get("lines", []),
                            "calls": calls[k],
                            "mean_ms": total[k] / calls[k] if calls[k] else 0.0,
                            "total_ms": total[k]})
        return {"format": "tcc-profile", "version": 1, "model": self.manifest.get("model", ""),
                "device": device or "?", "calls": runs.value, "kernels": kernels}

    @property
    def weight_names(self):
        """The weights a user binds (parameter and buffer names). Derived
        weights are not among them: the runtime computes those."""
        return [w["name"] for w in self.manifest["weights"] if "derived" not in w]

    @property
    def derived_weight_names(self):
        """Weights the runtime computes from the others (e.g. batch norm's
        scale and shift), again after each binding; never bound."""
        return [w["name"] for w in self.manifest["weights"] if "derived" in w]

    def bind_weights(self, state_dict, strict=False):
        """(Re)binds weights by parameter name from a state_dict. The tensors are
        kept alive by the model; the next run recomputes the derived weights
        and CUDA runs copy the weights to the device again."""
        torch = _torch()
        specs = {w["name"]: w for w in self.manifest["weights"] if "derived" not in w}
        for name, value in state_dict.items():
            if name not in specs:
                if strict:
                    raise TccError(f"the model has no weight named '{name}'")
                continue
            # The name, dtype and shape, as tcc run -w checks them: a tensor of
            # the right byte count but another shape or dtype would be read as
            # garbage.
            spec = specs[name]
            _check_tensor(value, f"weight '{name}'", torch)
            dtype = str(value.dtype).replace("torch.", "")
            if dtype != spec["dtype"]:
                raise TccError(f"weight '{name}': expected dtype {spec['dtype']}, got {dtype}")
            if list(value.shape) != list(spec["sizes"]):
                raise TccError(f"weight '{name}': expected shape {list(spec['sizes'])}, "
                               f"got {list(value.shape)}")
            t = _dense(value.detach().to("cpu"))
            self._check(self._lib.tcc_model_bind_weight(
                self._handle, name.encode(), ctypes.c_void_p(t.data_ptr()),
                t.numel() * t.element_size()))
            self._bound[name] = t
        return self

    def load_weights(self, path=None):
        """Binds every weight from a weights file that `tcc compile
        --external-weights` wrote (default: `<model>.weights.bin` beside
        model.so), as `tcc run` does. It holds what a state_dict may lack,
        such as tensor constants the export lifted. bind_weights can then
        rebind single weights by name."""
        if path is None:
            stem = self.path[:-3] if self.path.endswith(".so") else self.path
            path = stem + ".weights.bin"
        if not os.path.isfile(path):
            raise TccError(f"{path}: no such weights file")
        self._lib.tcc_model_load_weights.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self._check(self._lib.tcc_model_load_weights(self._handle, os.fsencode(path)))
        return self

    @property
    def state_names(self):
        """The buffers the model's forward writes, which this instance keeps
        from one call to the next (a running statistic, a key/value cache)."""
        return [st["name"] for st in self.manifest.get("states", [])]

    def _state_index(self, name):
        names = self.state_names
        if name not in names:
            raise TccError(f"model '{self.manifest.get('model', '')}' has no state named "
                           f"'{name}' (its states: {', '.join(names) or 'none'})")
        return names.index(name)

    def _checked_state(self, name, value, torch):
        """The index of state `name`, after checking that `value` is a tensor
        of its dtype and shape."""
        i = self._state_index(name)
        spec = self.manifest["states"][i]
        _check_tensor(value, f"state '{name}'", torch)
        dtype = str(value.dtype).replace("torch.", "")
        if dtype != spec["dtype"] or list(value.shape) != list(spec["sizes"]):
            raise TccError(f"state '{name}': expected {spec['dtype']} {list(spec['sizes'])}, "
                           f"got {dtype} {list(value.shape)}")
        return i

    def state(self, device="cpu"):
        """A copy of every state, {name: tensor} on `device` ("cpu" or a CUDA
        device), as the calls so far left it (waiting for a CUDA run still
        writing it)."""
        torch = _torch()
        fn = self._lib.tcc_model_read_state
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
                       ctypes.c_size_t]
        device = torch.device(device)
        result = {}
        for i, st in enumerate(self.manifest.get("states", [])):
            t = torch.empty(st["sizes"], dtype=getattr(torch, st["dtype"]), device=device)
            code = _CUDA if device.type == "cuda" else _CPU
            self._check(fn(self._handle, i, ctypes.c_void_p(t.data_ptr()), code,
                           t.numel() * t.element_size()))
            result[st["name"]] = t
        return result

    def set_state(self, states):
        """Replaces states from {name: tensor} (each of the state's dtype and
        shape, on the CPU or a CUDA device); the next call reads them."""
        torch = _torch()
        fn = self._lib.tcc_model_write_state
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
                       ctypes.c_size_t]
        for name, value in states.items():
            i = self._checked_state(name, value, torch)
            t = _dense(value.detach())
            code = _CUDA if t.device.type == "cuda" else _CPU
            self._check(fn(self._handle, i, ctypes.c_void_p(t.data_ptr()), code,
                           t.numel() * t.element_size()))
        return self

    def bind_state(self, states):
        """Keeps states in the caller's tensors, {name: tensor} (each of the
        state's dtype and shape, dense, on the CPU or a CUDA device): calls on
        that device read and write them in place, as PyTorch writes a
        module's own buffers. tcc.compile binds a module's buffers so."""
        torch = _torch()
        fn = self._lib.tcc_model_bind_state
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
                       ctypes.c_size_t]
        kept = getattr(self, "_bound_states", {})
        for name, value in states.items():
            i = self._checked_state(name, value, torch)
            if not value.is_contiguous():
                raise TccError(f"state '{name}': the tensor is not contiguous; tcc writes the "
                               "state in place, so it needs the tensor's own dense memory")
            code = _CUDA if value.device.type == "cuda" else _CPU
            self._check(fn(self._handle, i, ctypes.c_void_p(value.data_ptr()), code,
                           value.numel() * value.element_size()))
            kept[name] = value
        self._bound_states = kept
        return self

    def reset_state(self):
        """Every state back to its value in the export (a new sequence)."""
        self._lib.tcc_model_reset_state.argtypes = [ctypes.c_void_p]
        self._check(self._lib.tcc_model_reset_state(self._handle))
        return self

    def generate(self, prompt, max_new_tokens=32, eos_token=None, top_k=0, temperature=1.0,
                 seed=0, device="cpu", on_token=None):
        """Generates with a decoder whose key/value cache is its state (inputs:
        token ids [batch, tokens] and their positions [tokens]; output: logits
        [batch, tokens, vocab]; include/tcc/runtime.h, tcc_model_generate):
        resets the state, feeds `prompt` (token ids [batch, tokens] or
        [tokens]), then one token per call, greedy (the argmax) or sampled
        among the `top_k` most likely at `temperature` with `seed` (tcc's own
        random stream, not PyTorch's), until `max_new_tokens` or every row has
        produced `eos_token`. `on_token(step, tokens)` (a list per row) is
        called after each; a true return stops. Returns the generated tokens,
        an int64 tensor [batch, n] (rows that ended early padded with
        eos_token), and sets `last_generate_stats`."""
        torch = _torch()
        p = torch.as_tensor(prompt, dtype=torch.int64).cpu()
        if p.dim() == 1:
            p = p.unsqueeze(0)
        if p.dim() != 2 or p.numel() == 0:
            raise TccError("the prompt is token ids [batch, tokens] or [tokens]")
        p = p.contiguous()
        batch, length = p.shape
        fn = self._lib.tcc_model_generate
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                       ctypes.POINTER(_GenerateOptions), ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.POINTER(_GenerateStats)]
        options = _GenerateOptions()
        options.max_new_tokens = int(max_new_tokens)
        options.eos_token = -1 if eos_token is None else int(eos_token)
        options.top_k = int(top_k)
        options.temperature = float(temperature)
        options.seed = int(seed)
        dev = torch.device(device)
        options.device = _CUDA if dev.type == "cuda" else _CPU
        if dev.type == "cuda":
            options.stream = torch.cuda.current_stream(dev).cuda_stream
        failure = []

        def callback(_user, step, tokens, n):
            try:
                return 1 if on_token(step, [tokens[i] for i in range(n)]) else 0
            except BaseException as e:  # noqa: BLE001 - raised again below
                failure.append(e)
                return 1
        options.on_token = _ON_TOKEN(callback) if on_token else _ON_TOKEN()
        tokens = torch.empty((batch, max(int(max_new_tokens), 0)), dtype=torch.int64)
        counts = (ctypes.c_int32 * batch)()
        stats = _GenerateStats()
        with self._lock:
            status = fn(self._handle, ctypes.c_void_p(p.data_ptr()), batch, length,
                        ctypes.byref(options), ctypes.c_void_p(tokens.data_ptr()), counts,
                        ctypes.byref(stats))
        if failure:
            raise failure[0]
        self._check(status)
        self.last_generate_stats = {"prompt_calls": stats.prompt_calls,
                                    "decode_calls": stats.decode_calls,
                                    "prompt_ms": stats.prompt_ms, "decode_ms": stats.decode_ms}
        return tokens[:, :max(counts) if batch else 0]

    def _plan(self, inputs, key):
        """Builds (once per input signature) what a call needs: checks the
        inputs against the guards and computes the output shapes in C."""
        torch = _torch()
        if not inputs:
            raise TccError("the model needs its inputs")
        device = inputs[0].device
        if any(t.device != device for t in inputs):
            raise TccError("all inputs must be on one device")
        plan = _CallPlan(self, inputs, device, torch)
        if len(self._plans) >= _MAX_PLANS:  # bounded: dynamic shapes add one per size
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def __call__(self, *inputs):
        """Runs the model on tensors; one output is returned as is, several as a tuple."""
        results = self.run_flat(inputs)
        return results[0] if len(results) == 1 else tuple(results)

    def run_flat(self, inputs):
        """Runs the model on a sequence of tensors; returns the list of outputs."""
        # The signature: shapes, dtypes, devices and layouts (torch.Size,
        # dtype, device and layout objects hash quickly).
        try:
            key = tuple([(t.shape, t.dtype, t.device, t.layout) for t in inputs])
        except AttributeError:  # not a tensor (a NumPy array, a list)
            for i, t in enumerate(inputs):
                _check_tensor(t, f"input #{i}", _torch())
            raise
        plan = self._plans.get(key)
        if plan is None:
            torch = _torch()
            for i, t in enumerate(inputs):
                _check_tensor(t, f"input #{i}", torch)
            plan = self._plan(inputs, key)
        keep = None
        given = inputs
        for t in inputs:
            # Negated and conjugated views keep their sign in a flag, not in
            # the bytes tcc reads: materialized like non-contiguous ones.
            if not t.is_contiguous() or t.is_neg() or t.is_conj():
                keep = [_dense(t) for t in inputs]
                inputs = keep  # alive until the run is enqueued
                break
        empty_like = plan.empty_like
        results = [empty_like(proto) for proto in plan.prototypes]
        with self._lock:
            for slot, t in zip(plan.input_slots, inputs):
                slot.value = t.data_ptr()
            for slot, t in zip(plan.output_slots, results):
                slot.value = t.data_ptr()
            if plan.is_cuda:
                plan.stream_arg.value = plan.current_stream(plan.device_index)
            status = plan.run(*plan.args)
        if status != 0:
            raise TccError(self._last_error())
        if keep is not None:
            # An input the forward writes in place was written into its
            # dense copy: into the caller's tensor too, as PyTorch would.
            for i in self._written_inputs:
                if keep[i] is not given[i]:
                    given[i].copy_(keep[i])
        del keep
        return results


_MAX_PLANS = 64


class _CallPlan:
    """The ctypes arrays and output shapes of one input signature. A call only
    writes the data pointers (through `input_slots`/`output_slots`, c_void_p
    views of the `data` fields) and allocates the outputs."""

    def __init__(self, model, inputs, device, torch):
        lib = model._lib
        self.device = device
        self.is_cuda = device.type == "cuda"
        self.device_index = device.index if device.index is not None else (
            torch.cuda.current_device() if self.is_cuda else -1)
        code = _CUDA if self.is_cuda else _CPU
        self.num_inputs = len(inputs)
        self._keep = []
        self.c_inputs = (_Tensor * max(len(inputs), 1))()
        for i, t in enumerate(inputs):
            sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
            self._keep.append(sizes)
            self.c_inputs[i] = _Tensor(None, _dtype_code(t), code, t.dim(), sizes)
        # The guards, once, with a clear message; the output shapes they give.
        n_out = len(model._output_dtype_names)
        size_arrays = [(ctypes.c_int64 * max(len(o["sizes"]), 1))()
                       for o in model.manifest["outputs"]]
        size_ptrs = (ctypes.POINTER(ctypes.c_int64) * max(n_out, 1))(
            *[ctypes.cast(a, ctypes.POINTER(ctypes.c_int64)) for a in size_arrays])
        status = lib.tcc_model_output_sizes(model._handle, self.c_inputs, len(inputs),
                                            size_ptrs, n_out)
        if status == _GUARD_VIOLATION:
            raise GuardError(model._last_error())
        model._check(status)
        self.outputs = []
        self.num_outputs = n_out
        self.c_outputs = (_Tensor * max(n_out, 1))()
        for i, (o, sizes) in enumerate(zip(model.manifest["outputs"], size_arrays)):
            shape = tuple(sizes[d] for d in range(len(o["sizes"])))
            dtype = getattr(torch, o["dtype"])
            self.outputs.append((shape, dtype))
            self._keep.append(sizes)
            self.c_outputs[i] = _Tensor(None, _DTYPE_NAMES.index(o["dtype"]), code,
                                        len(shape), sizes)
        # Outputs are allocated with torch.empty_like of a one-element tensor
        # expanded to the output's shape (not dense, so empty_like gives
        # contiguous strides): faster than torch.empty with keywords.
        if all(all(shape) for shape, _ in self.outputs):
            self.prototypes = [
                torch.empty((1,) * len(shape), dtype=dtype, device=device).expand(shape)
                for shape, dtype in self.outputs]
            self.empty_like = torch.empty_like
        else:  # a zero-sized dimension: plain torch.empty
            self.prototypes = [(shape, dtype, device) for shape, dtype in self.outputs]
            self.empty_like = lambda p: torch.empty(p[0], dtype=p[1], device=p[2])
        size = ctypes.sizeof(_Tensor)
        offset = _Tensor.data.offset
        self.input_slots = [ctypes.c_void_p.from_buffer(self.c_inputs, i * size + offset)
                            for i in range(len(inputs))]
        self.output_slots = [ctypes.c_void_p.from_buffer(self.c_outputs, i * size + offset)
                             for i in range(n_out)]
        # The entry point without argtypes, called with ctypes objects built
        # here: nothing is converted per call but the stream's value.
        n_in, n_out = ctypes.c_int32(len(inputs)), ctypes.c_int32(n_out)
        if self.is_cuda:
            self.run = lib._FuncPtr(("tcc_model_run_on_stream", lib))
            self.stream_arg = ctypes.c_void_p()
            self.args = (model._handle_arg, self.c_inputs, n_in, self.c_outputs, n_out,
                         self.stream_arg)
        else:
            self.run = lib._FuncPtr(("tcc_model_run", lib))
            self.args = (model._handle_arg, self.c_inputs, n_in, self.c_outputs, n_out)
        self.run.restype = ctypes.c_int
        if self.is_cuda:
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            if raw is not None:
                self.current_stream = raw  # device index -> cudaStream_t as int
            else:
                self.current_stream = (
                    lambda index: torch.cuda.current_stream(index).cuda_stream)


def load(path):
    """Loads model.so (compiled by `tcc compile`) and returns a callable Model."""
    return Model(path)


# The compiler driver and the Dynamo backend (they import torch only when used).
from .compiler import CompileError, CompiledModule, compile, find_executable  # noqa: E402
from .dynamo import backend  # noqa: E402
