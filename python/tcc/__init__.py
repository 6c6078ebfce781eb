"""tcc's Python loader: run a compiled model.so on torch tensors.

    import tcc
    model = tcc.load("model.so")
    y = model(x)                       # CPU or CUDA tensors; no copies
    model.bind_weights(module.state_dict())

Inputs are used in place (their data pointers go straight to the compiled
code); outputs are allocated on the inputs' device. CUDA runs are enqueued on
torch's current stream. A guard violation raises TccError with the manifest's
message, e.g. "input 'x' (#0) dimension 0: expected s77 in [1, 1024], got 1025".
"""
import ctypes
import json
import os

__all__ = ["load", "Model", "TccError"]


class TccError(RuntimeError):
    """A failure reported by the tcc runtime (guard violation, missing weight, ...)."""


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("device", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.POINTER(ctypes.c_int64))]


# tcc_dtype codes (include/tcc/runtime.h, tcc::DType).
_DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                "int16", "int8", "uint8", "bool"]
_CPU, _CUDA = 0, 1


def _torch():
    import torch  # imported lazily: the loader itself needs only ctypes
    return torch


def _dtype_code(t):
    name = str(t.dtype).replace("torch.", "")
    if name not in _DTYPE_NAMES:
        raise TccError(f"tensor dtype {t.dtype} is not supported by tcc")
    return _DTYPE_NAMES.index(name)


class Model:
    """One instance of a compiled model (its own arena and weight bindings)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
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
        handle = lib.tcc_model_create()
        if not handle:
            raise TccError(self._last_error())
        self._handle = handle
        self.manifest = json.loads(lib.tcc_model_manifest(handle, None).decode())
        self._bound = {}  # keeps bound weight tensors alive

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
    def weight_names(self):
        return [w["name"] for w in self.manifest["weights"]]

    def bind_weights(self, state_dict, strict=False):
        """(Re)binds weights by parameter name from a state_dict. The tensors are
        kept alive by the model; CUDA runs copy them to the device."""
        torch = _torch()
        names = set(self.weight_names)
        for name, value in state_dict.items():
            if name not in names:
                if strict:
                    raise TccError(f"the model has no weight named '{name}'")
                continue
            t = value.detach().to("cpu").contiguous()
            self._check(self._lib.tcc_model_bind_weight(
                self._handle, name.encode(), ctypes.c_void_p(t.data_ptr()),
                t.numel() * t.element_size()))
            self._bound[name] = t
        return self

    @staticmethod
    def _describe(t, keep):
        sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
        keep.append(sizes)
        device = _CUDA if t.is_cuda else _CPU
        return _Tensor(ctypes.c_void_p(t.data_ptr()), _dtype_code(t), device, t.dim(), sizes)

    def __call__(self, *inputs):
        torch = _torch()
        if not inputs:
            raise TccError("the model needs its inputs")
        device = inputs[0].device
        if any(t.device != device for t in inputs):
            raise TccError("all inputs must be on one device")
        inputs = [t if t.is_contiguous() else t.contiguous() for t in inputs]
        keep = []
        c_inputs = (_Tensor * len(inputs))(*[self._describe(t, keep) for t in inputs])
        outs = self.manifest["outputs"]
        size_arrays = [(ctypes.c_int64 * max(len(o["sizes"]), 1))() for o in outs]
        size_ptrs = (ctypes.POINTER(ctypes.c_int64) * len(outs))(
            *[ctypes.cast(a, ctypes.POINTER(ctypes.c_int64)) for a in size_arrays])
        self._check(self._lib.tcc_model_output_sizes(
            self._handle, c_inputs, len(inputs), size_ptrs, len(outs)))
        results = []
        for o, sizes in zip(outs, size_arrays):
            shape = [sizes[i] for i in range(len(o["sizes"]))]
            results.append(torch.empty(shape, dtype=getattr(torch, o["dtype"]), device=device))
        c_outputs = (_Tensor * len(results))(*[self._describe(t, keep) for t in results])
        if device.type == "cuda":
            stream = torch.cuda.current_stream(device).cuda_stream
            self._check(self._lib.tcc_model_run_on_stream(
                self._handle, c_inputs, len(inputs), c_outputs, len(results),
                ctypes.c_void_p(stream)))
        else:
            self._check(self._lib.tcc_model_run(
                self._handle, c_inputs, len(inputs), c_outputs, len(results)))
        return results[0] if len(results) == 1 else tuple(results)


def load(path):
    """Loads model.so (compiled by `tcc compile`) and returns a callable Model."""
    return Model(path)
