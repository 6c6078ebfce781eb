//===- WeightLoader.cpp - parameter, buffer and constant bytes of a .pt2 --===//
#include "WeightLoader.h"

#include "ExportSchemaReader.h"

#include "tcc/Frontend/FrontendError.h"

#include <cstring>

namespace tcc::frontend {

namespace {

/// Copies the tensor `meta` describes out of `storage` into row-major bytes.
/// `who` names the payload in messages.
std::vector<uint8_t> extractTensor(const TensorMeta &meta,
                                   std::vector<uint8_t> storage,
                                   const std::string &who) {
  const uint64_t elementSize = dtypeSize(meta.dtype);
  size_t rank = meta.sizes.size();
  uint64_t elements = 1;
  // Highest element index the view touches, from its offset and strides.
  uint64_t lastElement = 0;
  if (meta.storageOffset < 0)
    throw FrontendError(who + " has a negative storage offset");
  for (size_t k = 0; k < rank; ++k) {
    if (!meta.sizes[k].isStatic() || !meta.strides[k].isStatic())
      throw FrontendError(who + " has a symbolic size or stride");
    int64_t size = *meta.sizes[k].value, stride = *meta.strides[k].value;
    if (size < 0 || stride < 0)
      throw FrontendError(who + " has a negative size or stride");
    uint64_t span = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(size), elements,
                               &elements) ||
        (size > 0 && __builtin_mul_overflow(static_cast<uint64_t>(size - 1),
                                            static_cast<uint64_t>(stride),
                                            &span)) ||
        __builtin_add_overflow(lastElement, span, &lastElement))
      throw FrontendError(who + " is too large");
  }
  uint64_t neededBytes = 0;
  if (elements > 0 &&
      (__builtin_add_overflow(lastElement,
                              static_cast<uint64_t>(meta.storageOffset) + 1,
                              &lastElement) ||
       __builtin_mul_overflow(lastElement, elementSize, &neededBytes)))
    throw FrontendError(who + " is too large");
  if (storage.size() < neededBytes)
    throw FrontendError(who + " needs " + std::to_string(neededBytes) +
                        " bytes (" + formatTensorType(meta) + ") but holds " +
                        std::to_string(storage.size()));

  const uint64_t denseBytes = elements * elementSize;
  if (meta.contiguous && meta.storageOffset == 0) {
    // The usual case: the storage is the tensor (possibly with a tail that
    // another view of the same storage uses).
    storage.resize(static_cast<size_t>(denseBytes));
    return storage;
  }
  std::vector<uint8_t> dense(static_cast<size_t>(denseBytes));
  std::vector<int64_t> index(rank, 0);
  for (uint64_t e = 0; e < elements; ++e) {
    uint64_t source = static_cast<uint64_t>(meta.storageOffset);
    for (size_t k = 0; k < rank; ++k)
      source += static_cast<uint64_t>(index[k]) *
                static_cast<uint64_t>(*meta.strides[k].value);
    std::memcpy(dense.data() + e * elementSize,
                storage.data() + source * elementSize, elementSize);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < *meta.sizes[k].value)
        break;
      index[k] = 0;
    }
  }
  return dense;
}

/// The metadata of the row-major copy extractTensor makes.
void makeRowMajor(TensorMeta &meta) {
  int64_t stride = 1;
  for (size_t k = meta.sizes.size(); k-- > 0;) {
    meta.strides[k] = SymDim{stride, "", stride};
    stride *= *meta.sizes[k].value;
  }
  meta.storageOffset = 0;
  meta.contiguous = true;
}

} // namespace

std::map<std::string, TensorData>
loadPayloads(const ExportArchiveReader &archive, const std::string &configEntry,
             const std::string &dataFolder, PayloadKind kind) {
  std::map<std::string, TensorData> payloads;
  if (!archive.hasEntry(configEntry))
    return payloads;
  const char *what = kind == PayloadKind::Weight ? "weight" : "constant";
  std::string where = archive.path() + ": " + configEntry;

  // Parse the whole config first so its errors name the config entry.
  struct Pending {
    std::string name;
    std::string entry;
    TensorMeta meta;
  };
  std::vector<Pending> pending;
  std::vector<uint8_t> text = archive.readEntry(configEntry);
  try {
    Json root = parseJsonText(std::string_view(
        reinterpret_cast<const char *>(text.data()), text.size()));
    const Json &config = asObject(requireField(root, "config", ""), "config");
    for (auto it = config.begin(); it != config.end(); ++it) {
      const std::string &name = it.key();
      std::string at = fieldPath("config", name.c_str());
      const Json &payload = it.value();
      if (const Json *pickle = optionalField(payload, "use_pickle", at))
        if (asBool(*pickle, fieldPath(at, "use_pickle")))
          throw FrontendError(std::string(what) + " '" + name + "': pickled " +
                              what + "s are not supported");
      std::string pathName = asString(requireField(payload, "path_name", at),
                                      fieldPath(at, "path_name"));
      const Json *metaJson = optionalField(payload, "tensor_meta", at);
      if (!metaJson)
        throw FrontendError(std::string(what) + " '" + name +
                            "' has no tensor_meta");
      pending.push_back(
          {name, dataFolder + pathName,
           parseTensorMeta(*metaJson, fieldPath(at, "tensor_meta"), name)});
    }
  } catch (const FrontendError &e) {
    throw FrontendError(where + ": " + e.what());
  }

  for (Pending &p : pending) {
    std::string who = archive.path() + ": " + what + " '" + p.name + "'";
    if (!archive.hasEntry(p.entry))
      throw FrontendError(who + ": archive has no entry '" + p.entry + "'");
    TensorData data;
    data.bytes = extractTensor(p.meta, archive.readEntry(p.entry),
                               who + " (entry '" + p.entry + "')");
    data.meta = std::move(p.meta);
    makeRowMajor(data.meta);
    payloads.emplace(p.name, std::move(data));
  }
  return payloads;
}

} // namespace tcc::frontend
