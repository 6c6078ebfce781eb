//===- Unpickler.h - the pickles torch.jit.save writes ---------------------===//
//
// A small, bounded unpickler for what PyTorch writes into a TorchScript
// archive (data.pkl, constants.pkl, traced_inputs.pkl): protocol 2 opcodes
// plus the few of protocol 4 that newer writers use. Tensors come from
// torch._utils._rebuild_tensor_v2 over persistent storage ids
// ('storage', FloatStorage, key, device, numel); module objects keep their
// attribute dicts; any other global is kept as an opaque object.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_TORCHSCRIPT_UNPICKLER_H
#define TCC_FRONTEND_TORCHSCRIPT_UNPICKLER_H

#include "tcc/Support/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tcc::frontend::torchscript {

struct PyObject;
using PyRef = std::shared_ptr<PyObject>;

/// A tensor as a pickle describes it: a view of a storage entry.
struct PickledTensor {
  std::string storageKey; ///< "0" → entry data/0
  DType dtype = DType::Float32;
  std::string device;
  int64_t storageNumel = 0;
  int64_t storageOffset = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

struct PyObject {
  enum Kind { None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Global, Object, Storage, Tensor };
  Kind kind = None;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  /// Str/Bytes: the text; Global and Object: "module.name" of the class.
  std::string s;
  /// Tuple/List items; Object: constructor arguments.
  std::vector<PyRef> items;
  std::vector<std::pair<PyRef, PyRef>> dict;
  /// Object: what BUILD set (usually a Dict of attributes).
  PyRef state;
  /// Storage (storageKey, dtype, device, storageNumel) and Tensor.
  PickledTensor tensor;

  /// The Dict entry (Dict, or an Object's state Dict) with string key `key`.
  PyRef get(const std::string &key) const;
};

/// Unpickles `bytes`; `what` names the entry in messages. Throws
/// FrontendError "<what>: malformed pickle: ... at offset N" (one line).
PyRef unpickle(const std::vector<uint8_t> &bytes, const std::string &what);

} // namespace tcc::frontend::torchscript

#endif // TCC_FRONTEND_TORCHSCRIPT_UNPICKLER_H
