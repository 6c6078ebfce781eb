//===- TorchScriptArchive.cpp - read a torch.jit.save archive --------------===//
#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"

#include "ExportArchiveReader.h"
#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/Unpickler.h"

#include <zip.h>

#include <cstring>
#include <fstream>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
std::vector<std::string> listEntries(const std::string &path) {
  std::vector<std::string> names;
  int code = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!z)
    return names;
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t k = 0; k < n; ++k)
    if (const char *raw = zip_get_name(z, static_cast<zip_uint64_t>(k), 0))
      names.emplace_back(raw);
  zip_discard(z);
  return names;
}

/// "<top>/data.pkl" or "data.pkl" → the prefix; nullopt when absent.
std::optional<std::string> findPrefix(const std::vector<std::string> &entries) {
  for (const std::string &e : entries) {
    if (e == "data.pkl")
      return std::string();
    static const std::string tail = "/data.pkl";
    if (e.size() > tail.size() && e.compare(e.size() - tail.size(), tail.size(), tail) == 0) {
      std::string top = e.substr(0, e.size() - tail.size() + 1);
      if (top.find('/') == top.size() - 1)
        return top;
    }
  }
  return std::nullopt;
}

TensorMeta metaOf(const PickledTensor &t) {
  TensorMeta m;
  m.dtype = t.dtype;
  m.device = t.device;
  int64_t stride = 1;
  m.strides.resize(t.sizes.size());
  for (size_t i = t.sizes.size(); i-- > 0;) {
    m.strides[i].value = stride;
    m.strides[i].hint = stride;
    stride *= t.sizes[i];
  }
  for (int64_t s : t.sizes)
    m.sizes.push_back(SymDim{s, "", s});
  return m;
}

class ArchiveLoader {
public:
  ArchiveLoader(const std::string &path, TorchScriptArchive &out)
      : reader(path), out(out) {}

  void load() {
    std::vector<uint8_t> bytes = reader.readEntry(out.prefix + "data.pkl");
    PyRef root = unpickle(bytes, out.path + ": entry '" + out.prefix + "data.pkl'");
    walkModule(root, "", 0);
    std::string constantsEntry = out.prefix + "constants.pkl";
    if (reader.hasEntry(constantsEntry)) {
      PyRef c = unpickle(reader.readEntry(constantsEntry),
                         out.path + ": entry '" + constantsEntry + "'");
      if (c->kind == PyObject::Tuple || c->kind == PyObject::List)
        for (const PyRef &item : c->items) {
          if (item->kind != PyObject::Tensor) {
            out.constants.push_back(TensorData{}); // a non-tensor constant
            continue;
          }
          out.constants.push_back(tensorData(item->tensor, "constants/", "CONSTANTS"));
        }
    }
    std::string tracedEntry = out.prefix + "traced_inputs.pkl";
    if (reader.hasEntry(tracedEntry)) {
      PyRef t = unpickle(reader.readEntry(tracedEntry),
                         out.path + ": entry '" + tracedEntry + "'");
      if (PyRef fwd = t->get("forward"))
        if (fwd->kind == PyObject::List || fwd->kind == PyObject::Tuple)
          for (const PyRef &item : fwd->items)
            if (item->kind == PyObject::Tensor)
              out.tracedInputs.push_back(metaOf(item->tensor));
    }
  }

private:
  ExportArchiveReader reader;
  TorchScriptArchive &out;
  std::map<std::string, std::vector<uint8_t>> storages;

  void walkModule(const PyRef &obj, const std::string &path, int depth) {
    if (depth > 64 || obj->kind != PyObject::Object || !obj->state ||
        obj->state->kind != PyObject::Dict)
      return;
    out.moduleClasses[path] = obj->s;
    for (const auto &[k, v] : obj->state->dict) {
      if (!k || k->kind != PyObject::Str)
        continue;
      std::string name = path.empty() ? k->s : path + "." + k->s;
      switch (v->kind) {
      case PyObject::Tensor:
        out.tensors[name] = tensorData(v->tensor, "data/", name);
        break;
      case PyObject::Int:
        out.scalars[name] = static_cast<double>(v->i);
        break;
      case PyObject::Float:
        out.scalars[name] = v->f;
        break;
      case PyObject::Bool:
        out.scalars[name] = v->b;
        break;
      case PyObject::Object:
        walkModule(v, name, depth + 1);
        break;
      default:
        break;
      }
    }
  }

  TensorData tensorData(const PickledTensor &t, const std::string &folder,
                        const std::string &name) {
    std::string entry = out.prefix + folder + t.storageKey;
    auto it = storages.find(entry);
    if (it == storages.end())
      it = storages.emplace(entry, reader.readEntry(entry)).first;
    const std::vector<uint8_t> &storage = it->second;
    size_t elem = dtypeSize(t.dtype);
    std::string where = out.path + ": tensor '" + name + "' (entry '" + entry + "')";
    if (static_cast<uint64_t>(t.storageNumel) * elem != storage.size())
      throw FrontendError(where + " holds " + std::to_string(storage.size()) +
                          " bytes but its storage has " + std::to_string(t.storageNumel) +
                          " elements of " + std::to_string(elem) + " bytes");
    TensorData d;
    d.meta = metaOf(t);
    int64_t numel = 1, maxOffset = t.storageOffset;
    bool pastInt64 = false; // the last element's offset: past any storage
    for (size_t i = 0; i < t.sizes.size(); ++i) {
      if (t.sizes[i] < 0 || t.strides[i] < 0)
        throw FrontendError(where + " has a negative size or stride");
      if (__builtin_mul_overflow(numel, t.sizes[i], &numel) || numel > (int64_t(1) << 36))
        throw FrontendError(where + " is too large");
      int64_t span;
      if (t.sizes[i] > 0 && (__builtin_mul_overflow(t.sizes[i] - 1, t.strides[i], &span) ||
                             __builtin_add_overflow(maxOffset, span, &maxOffset)))
        pastInt64 = true;
    }
    if (numel == 0)
      return d;
    if (t.storageOffset < 0 || pastInt64 || maxOffset >= t.storageNumel)
      throw FrontendError(where + " reads past the end of its storage");
    d.bytes.resize(static_cast<size_t>(numel) * elem);
    std::vector<int64_t> index(t.sizes.size(), 0);
    for (int64_t n = 0; n < numel; ++n) {
      int64_t off = t.storageOffset;
      for (size_t i = 0; i < index.size(); ++i)
        off += index[i] * t.strides[i];
      std::memcpy(d.bytes.data() + n * elem, storage.data() + off * elem, elem);
      for (size_t i = index.size(); i-- > 0;) {
        if (++index[i] < t.sizes[i])
          break;
        index[i] = 0;
      }
    }
    return d;
  }
};
} // namespace

std::optional<std::string>
TorchScriptArchive::readCodeFor(const std::string &qualifiedClass) const {
  // __torch__.a.b.C → code/__torch__/a/b.py
  size_t dot = qualifiedClass.rfind('.');
  if (dot == std::string::npos)
    return std::nullopt;
  std::string module = qualifiedClass.substr(0, dot);
  for (char &c : module)
    if (c == '.')
      c = '/';
  std::string entry = prefix + "code/" + module + ".py";
  ExportArchiveReader reader(path);
  if (!reader.hasEntry(entry))
    return std::nullopt;
  std::vector<uint8_t> bytes = reader.readEntry(entry);
  return std::string(bytes.begin(), bytes.end());
}

bool torchscript::isTorchScriptArchive(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  if (!f.read(magic, 4) || std::memcmp(magic, "PK\x03\x04", 4) != 0)
    return false;
  return findPrefix(listEntries(path)).has_value();
}

TorchScriptArchive torchscript::readTorchScriptArchive(const std::string &path) {
  TorchScriptArchive a;
  a.path = path;
  a.entries = listEntries(path);
  std::optional<std::string> prefix = findPrefix(a.entries);
  if (!prefix) {
    ExportArchiveReader check(path); // reports unreadable / not-a-zip
    throw FrontendError(path + ": not a TorchScript archive (no data.pkl at the root or "
                               "under one top folder)");
  }
  a.prefix = *prefix;
  ArchiveLoader(path, a).load();
  return a;
}
