//===- EmbeddedModel.cpp - tcc_model_create from the model's own symbols --===//
//
// The only file that references the symbols `tcc compile` emits
// (docs/ARTIFACT.md). It is built into libtcc_runtime.a but not into
// tcc_runtime_core, so the unit tests link the runtime without a model.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"

extern "C" {
extern const char tcc_model_manifest_json[];
extern const uint64_t tcc_model_manifest_size;
extern const uint8_t tcc_model_weights[];
extern const uint64_t tcc_model_weights_size;
// Weak: a model compiled with --target cuda (or cpu) has only one of them.
__attribute__((weak)) void tcc_model_forward(int64_t *packed);
__attribute__((weak)) void tcc_model_forward_cuda(int64_t *packed, void *stream);
}

extern "C" TCC_API tcc_model *tcc_model_create(void) {
  try {
    auto model = std::make_unique<tcc::Model>(
        std::string(tcc_model_manifest_json, tcc_model_manifest_size), tcc_model_weights,
        tcc_model_weights_size, &tcc_model_forward, &tcc_model_forward_cuda);
    return new tcc_model(std::move(model));
  } catch (...) {
    tcc::reportCurrentException();
    return nullptr;
  }
}
