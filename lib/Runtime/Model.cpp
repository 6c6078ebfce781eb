//===- Model.cpp - one instance of a compiled model -----------------------===//
//
// The packed calling convention (docs/ARTIFACT.md): for each entry argument,
// an MLIR strided memref descriptor flattened into 64-bit words,
//   allocated_ptr, aligned_ptr, offset = 0, sizes[rank], strides[rank]
// with row-major strides in elements.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Model.h"

#include "tcc/Runtime/RuntimeError.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace tcc {

namespace {

std::string shapeText(const int64_t *sizes, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

/// Appends one memref descriptor for a dense row-major tensor.
void appendDescriptor(std::vector<int64_t> &packed, const void *data,
                      const int64_t *sizes, size_t rank) {
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  packed.push_back(ptr); // allocated
  packed.push_back(ptr); // aligned
  packed.push_back(0);   // offset
  packed.insert(packed.end(), sizes, sizes + rank);
  size_t stridesAt = packed.size();
  packed.resize(stridesAt + rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    packed[stridesAt + d] = stride;
    stride *= sizes[d];
  }
}

int64_t elementCount(const int64_t *sizes, size_t rank) {
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

} // namespace

void Model::FreeDeleter::operator()(void *p) const { std::free(p); }

Model::AlignedBuffer Model::allocateAligned(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment, and a real pointer even
  // for an empty arena keeps descriptors uniform.
  size_t rounded = (bytes + kRuntimeAlignment - 1) / kRuntimeAlignment * kRuntimeAlignment;
  if (rounded == 0)
    rounded = kRuntimeAlignment;
  void *p = std::aligned_alloc(kRuntimeAlignment, rounded);
  if (!p)
    throw RuntimeError(TCC_ERROR_OUT_OF_MEMORY,
                       "cannot allocate " + std::to_string(bytes) + " bytes");
  return AlignedBuffer(static_cast<uint8_t *>(p));
}

Model::Model(std::string manifestJson, const uint8_t *weights, size_t weightsSize,
             ForwardFn forward)
    : manifestJson_(std::move(manifestJson)),
      manifest_(GuardManifest::parse(manifestJson_)), forward_(forward) {
  if (!forward_)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "the model has no forward function");
  weights_.assign(manifest_.weights.size(), nullptr);
  for (size_t i = 0; i < manifest_.weights.size(); ++i) {
    const WeightSpec &w = manifest_.weights[i];
    if (!w.embedded)
      continue;
    if (w.offset > weightsSize || w.bytes > weightsSize - w.offset)
      throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                         "invalid guard manifest: embedded weight '" + w.name +
                             "' lies outside the " + std::to_string(weightsSize) +
                             "-byte weights image");
    weights_[i] = weights + w.offset;
  }
  arena_ = allocateAligned(static_cast<size_t>(manifest_.arena.bytes));
  size_t words = 0;
  for (const EntryArg &a : manifest_.entryArgs)
    words += 3 + 2 * static_cast<size_t>(a.rank);
  packed_.reserve(words);
}

Model::~Model() = default;

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

void Model::bindWeight(std::string_view name, const void *data, size_t bytes) {
  for (size_t i = 0; i < manifest_.weights.size(); ++i) {
    const WeightSpec &w = manifest_.weights[i];
    if (w.name != name)
      continue;
    if (!data && w.bytes)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "weight '" + w.name + "': data is NULL");
    if (bytes != w.bytes)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "weight '" + w.name + "': expected " + std::to_string(w.bytes) +
                             " bytes (" + dtypeName(w.dtype) + " " + w.shapeText() +
                             "), got " + std::to_string(bytes));
    std::lock_guard<std::mutex> lock(mutex_);
    weights_[i] = data;
    return;
  }
  throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                     "model '" + manifest_.model + "' has no weight named '" +
                         std::string(name) + "'");
}

void Model::loadWeightsFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw RuntimeError(TCC_ERROR_IO, path + ": cannot open weights file");
  auto size = static_cast<uint64_t>(in.tellg());
  uint64_t needed = 0;
  for (const WeightSpec &w : manifest_.weights)
    needed = std::max(needed, w.offset + w.bytes);
  if (size < needed)
    throw RuntimeError(TCC_ERROR_IO, path + ": weights file has " + std::to_string(size) +
                                         " bytes, the manifest needs " +
                                         std::to_string(needed));
  AlignedBuffer buffer = allocateAligned(static_cast<size_t>(needed));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char *>(buffer.get()), static_cast<std::streamsize>(needed)))
    throw RuntimeError(TCC_ERROR_IO, path + ": read error");
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < manifest_.weights.size(); ++i)
    weights_[i] = buffer.get() + manifest_.weights[i].offset;
  loadedWeights_ = std::move(buffer);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

std::vector<std::vector<int64_t>> Model::outputSizes(const tcc_tensor *inputs,
                                                     size_t numInputs) const {
  return manifest_.outputSizes(manifest_.bindInputs(inputs, numInputs));
}

void Model::checkOutputs(const tcc_tensor *outputs, size_t numOutputs,
                         const std::vector<std::vector<int64_t>> &expected) const {
  if (numOutputs != manifest_.outputs.size())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "expected " + std::to_string(manifest_.outputs.size()) +
                           " output(s), got " + std::to_string(numOutputs));
  if (numOutputs && !outputs)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "outputs is NULL");
  for (size_t i = 0; i < numOutputs; ++i) {
    const TensorSpec &spec = manifest_.outputs[i];
    const tcc_tensor &t = outputs[i];
    std::string prefix = "output '" + spec.name + "' (#" + std::to_string(i) + ")";
    auto fail = [&](const std::string &what) {
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, prefix + ": " + what);
    };
    if (t.dtype != static_cast<int32_t>(spec.dtype))
      fail(std::string("expected dtype ") + dtypeName(spec.dtype) + ", got " +
           tcc_dtype_name(t.dtype));
    if (t.device != TCC_DEVICE_CPU)
      fail("expected device cpu");
    const std::vector<int64_t> &sizes = expected[i];
    if (t.rank != static_cast<int32_t>(sizes.size()) || (t.rank && !t.sizes) ||
        !std::equal(sizes.begin(), sizes.end(), t.sizes))
      fail("expected sizes " + shapeText(sizes.data(), sizes.size()) + ", got " +
           (t.sizes || !t.rank ? shapeText(t.sizes, t.rank < 0 ? 0 : t.rank) : "NULL"));
    if (!t.data && elementCount(sizes.data(), sizes.size()) != 0)
      fail("data is NULL");
  }
}

void Model::packArguments(const tcc_tensor *inputs, const tcc_tensor *outputs,
                          const SymbolBindings &symbols) {
  packed_.clear();
  std::vector<int64_t> sizes;
  for (const EntryArg &a : manifest_.entryArgs) {
    switch (a.role) {
    case EntryArgRole::Input: {
      const tcc_tensor &t = inputs[a.index];
      appendDescriptor(packed_, t.data, t.sizes, a.rank);
      break;
    }
    case EntryArgRole::Output: {
      const tcc_tensor &t = outputs[a.index];
      appendDescriptor(packed_, t.data, t.sizes, a.rank);
      break;
    }
    case EntryArgRole::Weight: {
      const WeightSpec &w = manifest_.weights[a.index];
      sizes.clear();
      for (const SymbolicExpr &e : w.sizes)
        sizes.push_back(e.evaluate(symbols));
      appendDescriptor(packed_, weights_[a.index], sizes.data(), a.rank);
      break;
    }
    case EntryArgRole::Arena: {
      int64_t bytes = manifest_.arena.bytes;
      appendDescriptor(packed_, arena_.get(), &bytes, 1);
      break;
    }
    }
  }
}

void Model::run(const tcc_tensor *inputs, size_t numInputs, const tcc_tensor *outputs,
                size_t numOutputs) {
  SymbolBindings symbols = manifest_.bindInputs(inputs, numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    const tcc_tensor &t = inputs[i];
    if (!t.data && elementCount(t.sizes, t.rank) != 0)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                         "input '" + manifest_.inputs[i].name + "' (#" + std::to_string(i) +
                             "): data is NULL");
    if (t.device != TCC_DEVICE_CPU)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "input '" + manifest_.inputs[i].name +
                             "': this runtime runs the CPU path only");
  }
  checkOutputs(outputs, numOutputs, manifest_.outputSizes(symbols));

  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!weights_[i] && manifest_.weights[i].bytes)
      throw RuntimeError(TCC_ERROR_MISSING_WEIGHT,
                         "weight '" + manifest_.weights[i].name + "' (#" + std::to_string(i) +
                             ") is not embedded and was never bound "
                             "(tcc_model_bind_weight or tcc_model_load_weights)");
  packArguments(inputs, outputs, symbols);
  forward_(packed_.data());
}

} // namespace tcc
