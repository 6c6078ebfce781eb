//===- ModelLibrary.cpp - a model.so opened with dlopen -------------------===//
#include "ModelLibrary.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>

namespace tcc {

namespace {

/// Why `path` is not an intact 64-bit ELF shared object ("" when it is): a
/// file cut short (a half-copied artifact) makes glibc fault with SIGBUS
/// while dlopen maps segments past its end, so every segment and table the
/// headers name must lie inside the file before dlopen sees it.
std::string damage(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    return "cannot open the file";
  uint64_t size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  Elf64_Ehdr header;
  if (size < sizeof header || !in.read(reinterpret_cast<char *>(&header), sizeof header))
    return "the file is too short to be a shared object (" + std::to_string(size) + " bytes)";
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF shared object";
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_type != ET_DYN)
    return "not a 64-bit ELF shared object";
  auto inside = [&](uint64_t offset, uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };
  std::string cut = "the file is truncated or damaged (" + std::to_string(size) + " bytes; ";
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      !inside(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr)))
    return cut + "its program headers lie past the end)";
  if (header.e_shoff &&
      !inside(header.e_shoff, uint64_t(header.e_shnum) * uint64_t(header.e_shentsize)))
    return cut + "its section headers lie past the end)";
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!in.read(reinterpret_cast<char *>(&segment), sizeof segment))
      return cut + "cannot read its program headers)";
    if (segment.p_filesz && !inside(segment.p_offset, segment.p_filesz))
      return cut + "segment " + std::to_string(i) + " needs " +
             std::to_string(segment.p_offset + segment.p_filesz) + ")";
  }
  return "";
}

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
  if (std::string why = damage(file); !why.empty())
    throw ModelLibraryError(path + ": cannot load: " + why);
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
    resolve(handle_, path, "tcc_model_get_option", api_.getOption);
    api_.setProfiling = reinterpret_cast<decltype(api_.setProfiling)>(
        dlsym(handle_, "tcc_model_set_profiling"));
    api_.profile = reinterpret_cast<decltype(api_.profile)>(dlsym(handle_, "tcc_model_profile"));
    api_.resetProfile =
        reinterpret_cast<decltype(api_.resetProfile)>(dlsym(handle_, "tcc_model_reset_profile"));
    auto optional = [&](const char *name, auto &slot) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle_, name));
    };
    optional("tcc_model_num_states", api_.numStates);
    optional("tcc_model_state_info", api_.stateInfo);
    optional("tcc_model_read_state", api_.readState);
    optional("tcc_model_reset_state", api_.resetState);
    optional("tcc_model_generate", api_.generate);
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
