//===- ModelName.cpp - the name a compiled model's symbols carry ----------===//
#include "tcc/Target/ModelName.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <string_view>

namespace {
/// Suffixes that would make `tcc_model_<name>` one of include/tcc/runtime.h's
/// functions or types, or an entry of the model's own object
/// (test/Tools/model-name.test checks this list against the header).
constexpr std::array<std::string_view, 39> kReserved = {
    "arena_bytes", "bind_state", "bind_weight", "create", "create_from", "descriptor", "destroy", "entry",
    "forward", "forward_cuda", "generate", "get_option", "input_info", "load_weights", "manifest",
    "manifest_json", "manifest_size", "name", "num_inputs", "num_outputs", "num_states",
    "num_symbols", "num_weights", "output_info", "output_sizes", "profile", "read_state",
    "reset_profile", "reset_state", "run", "run_on_stream", "set_option", "set_profiling",
    "state_info", "symbol_info", "weight_info", "weights", "weights_size", "write_state"};
constexpr size_t kMaxNameLength = 200;

/// `forward_<k>`, `forward_cuda_<k>`: a static specialization's entries
/// (tcc/Support/EntrySymbols.h).
bool isSpecializationEntry(std::string_view name) {
  for (std::string_view prefix : {"forward_cuda_", "forward_"})
    if (name.substr(0, prefix.size()) == prefix && name.size() > prefix.size() &&
        std::all_of(name.begin() + prefix.size(), name.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return true;
  return false;
}

bool isReserved(const std::string &name) {
  return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end() ||
         isSpecializationEntry(name);
}
} // namespace

std::string tcc::modelNameError(const std::string &name) {
  if (name.empty())
    return "a model name cannot be empty";
  if (name.size() > kMaxNameLength)
    return "model name '" + name.substr(0, 40) + "...' is longer than " +
           std::to_string(kMaxNameLength) + " characters";
  if (std::isdigit(static_cast<unsigned char>(name[0])))
    return "model name '" + name + "' starts with a digit: it must be a C identifier " +
           "([A-Za-z_][A-Za-z0-9_]*)";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return "model name '" + name + "' has the character '" + std::string(1, c) +
             "': it must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (isReserved(name))
    return "model name '" + name + "' is reserved: tcc_model_" + name +
           " is part of tcc's runtime (include/tcc/runtime.h); choose another";
  return "";
}

std::string tcc::defaultModelName(const std::string &outputPath) {
  std::string stem = std::filesystem::path(outputPath).filename().string();
  stem = stem.substr(0, stem.find('.'));
  std::string name;
  for (char c : stem)
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (name.empty())
    name = "model";
  if (std::isdigit(static_cast<unsigned char>(name[0])))
    name.insert(name.begin(), '_');
  if (name.size() > kMaxNameLength)
    name.resize(kMaxNameLength);
  if (isReserved(name))
    name += "_model";
  return name;
}
