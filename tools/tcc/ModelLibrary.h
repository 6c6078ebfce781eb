//===- ModelLibrary.h - a model.so opened with dlopen ---------------------===//
//
// `tcc run` and `tcc generate` load a compiled model the way a user program
// would: dlopen it and call the C ABI of include/tcc/runtime.h, looked up with
// dlsym (the driver itself also links the runtime, so calling the functions
// directly would reach the driver's copy, not the model's).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TOOLS_TCC_MODELLIBRARY_H
#define TCC_TOOLS_TCC_MODELLIBRARY_H

#include "tcc/runtime.h"

#include <stdexcept>
#include <string>

namespace tcc {

/// The library could not be loaded or lacks a C ABI function.
class ModelLibraryError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The C ABI entry points of one loaded model.so.
struct ModelApi {
  decltype(&tcc_last_error) lastError = nullptr;
  decltype(&tcc_status_string) statusString = nullptr;
  decltype(&tcc_model_create) create = nullptr;
  decltype(&tcc_model_destroy) destroy = nullptr;
  decltype(&tcc_model_manifest) manifest = nullptr;
  decltype(&tcc_model_num_inputs) numInputs = nullptr;
  decltype(&tcc_model_num_outputs) numOutputs = nullptr;
  decltype(&tcc_model_num_weights) numWeights = nullptr;
  decltype(&tcc_model_input_info) inputInfo = nullptr;
  decltype(&tcc_model_output_info) outputInfo = nullptr;
  decltype(&tcc_model_weight_info) weightInfo = nullptr;
  decltype(&tcc_model_bind_weight) bindWeight = nullptr;
  decltype(&tcc_model_load_weights) loadWeights = nullptr;
  decltype(&tcc_model_output_sizes) outputSizes = nullptr;
  decltype(&tcc_model_run) run = nullptr;
  decltype(&tcc_model_get_option) getOption = nullptr;
  // Optional (null in a model.so built before --profile existed).
  decltype(&tcc_model_set_profiling) setProfiling = nullptr;
  decltype(&tcc_model_profile) profile = nullptr;
  decltype(&tcc_model_reset_profile) resetProfile = nullptr;
  // Optional (null in a model.so built before state was carried).
  decltype(&tcc_model_num_states) numStates = nullptr;
  decltype(&tcc_model_state_info) stateInfo = nullptr;
  decltype(&tcc_model_read_state) readState = nullptr;
  decltype(&tcc_model_reset_state) resetState = nullptr;
  decltype(&tcc_model_generate) generate = nullptr;
};

/// Owns the dlopen handle and one model instance created from it.
class ModelLibrary {
public:
  /// Loads `path` (RTLD_NOW | RTLD_LOCAL), resolves the C ABI and creates an
  /// instance. Throws ModelLibraryError with dlerror() or tcc_last_error().
  explicit ModelLibrary(const std::string &path);
  ~ModelLibrary();
  ModelLibrary(const ModelLibrary &) = delete;
  ModelLibrary &operator=(const ModelLibrary &) = delete;

  const ModelApi &api() const { return api_; }
  tcc_model *model() const { return model_; }

  /// The model's tcc_last_error() text.
  std::string lastError() const { return api_.lastError(); }

  /// The embedded manifest JSON.
  std::string manifestJson() const;

private:
  void *handle_ = nullptr;
  ModelApi api_;
  tcc_model *model_ = nullptr;
};

} // namespace tcc

#endif // TCC_TOOLS_TCC_MODELLIBRARY_H
