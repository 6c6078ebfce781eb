//===- ModelLibrary.cpp - a model.so opened with dlopen -------------------===//
#include "ModelLibrary.h"

#include <dlfcn.h>

namespace tcc {

namespace {

template <typename Fn> void resolve(void *handle, const std::string &path, const char *name,
                                    Fn &fn) {
  void *symbol = dlsym(handle, name);
  if (!symbol)
    throw ModelLibraryError(path + ": not a tcc model: it does not export '" +
                            std::string(name) + "'");
  fn = reinterpret_cast<Fn>(symbol);
}

} // namespace

ModelLibrary::ModelLibrary(const std::string &path) {
  // A bare file name would make dlopen search the library path instead.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char *why = dlerror();
    throw ModelLibraryError(why ? why : path + ": cannot load");
  }
  try {
    resolve(handle_, path, "tcc_last_error", api_.lastError);
    resolve(handle_, path, "tcc_status_string", api_.statusString);
    resolve(handle_, path, "tcc_model_create", api_.create);
    resolve(handle_, path, "tcc_model_destroy", api_.destroy);
    resolve(handle_, path, "tcc_model_manifest", api_.manifest);
    resolve(handle_, path, "tcc_model_num_inputs", api_.numInputs);
    resolve(handle_, path, "tcc_model_num_outputs", api_.numOutputs);
    resolve(handle_, path, "tcc_model_num_weights", api_.numWeights);
    resolve(handle_, path, "tcc_model_input_info", api_.inputInfo);
    resolve(handle_, path, "tcc_model_output_info", api_.outputInfo);
    resolve(handle_, path, "tcc_model_weight_info", api_.weightInfo);
    resolve(handle_, path, "tcc_model_bind_weight", api_.bindWeight);
    resolve(handle_, path, "tcc_model_load_weights", api_.loadWeights);
    resolve(handle_, path, "tcc_model_output_sizes", api_.outputSizes);
    resolve(handle_, path, "tcc_model_run", api_.run);
    model_ = api_.create();
    if (!model_)
      throw ModelLibraryError(path + ": cannot create the model: " + api_.lastError());
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

ModelLibrary::~ModelLibrary() {
  api_.destroy(model_);
  dlclose(handle_);
}

std::string ModelLibrary::manifestJson() const {
  size_t size = 0;
  const char *json = api_.manifest(model_, &size);
  return json ? std::string(json, size) : std::string();
}

} // namespace tcc
