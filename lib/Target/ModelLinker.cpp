//===- ModelLinker.cpp - model object + runtime into model.so -------------===//
#include "tcc/Target/ModelLinker.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace llvm;

namespace {
Expected<std::string> findCxx(const tcc::LinkOptions &o) {
  std::vector<std::string> candidates;
  if (!o.cxx.empty())
    candidates.push_back(o.cxx);
  if (const char *env = std::getenv("TCC_CXX"))
    candidates.push_back(env);
  for (const char *c : {"c++", "g++", "clang++-22", "clang++"})
    candidates.push_back(c);
  for (const std::string &c : candidates)
    if (auto path = sys::findProgramByName(c))
      return *path;
  return createStringError(inconvertibleErrorCode(),
                           "no C++ driver found to link the model (tried c++, g++, "
                           "clang++; set TCC_CXX or --cxx)");
}

Expected<std::string> findRuntime(const tcc::LinkOptions &o) {
  if (!o.runtimeLibrary.empty())
    return o.runtimeLibrary;
  if (const char *env = std::getenv("TCC_RUNTIME_LIB"))
    return std::string(env);
  std::string exe = sys::fs::getMainExecutable(o.argv0.c_str(), (void *)&findRuntime);
  SmallString<256> path(sys::path::parent_path(sys::path::parent_path(exe)));
  sys::path::append(path, "lib", "libtcc_runtime.a");
  if (sys::fs::exists(path))
    return std::string(path);
  return createStringError(inconvertibleErrorCode(),
                           "cannot find libtcc_runtime.a (looked at " + std::string(path) +
                               "; set TCC_RUNTIME_LIB)");
}

Error run(const std::vector<std::string> &args) {
  std::vector<StringRef> refs(args.begin(), args.end());
  std::string error;
  int rc = sys::ExecuteAndWait(args[0], refs, std::nullopt, {}, 0, 0, &error);
  if (rc != 0) {
    std::string cmd;
    for (const std::string &a : args)
      cmd += (cmd.empty() ? "" : " ") + a;
    return createStringError(inconvertibleErrorCode(),
                             "linking failed (exit " + std::to_string(rc) + (error.empty() ? "" : ", " + error) +
                                 "); reproduce with: " + cmd);
  }
  return Error::success();
}
} // namespace

Error tcc::linkSharedObject(const std::string &object, const std::string &output,
                            const LinkOptions &o) {
  auto cxx = findCxx(o);
  if (!cxx) return cxx.takeError();
  auto rt = findRuntime(o);
  if (!rt) return rt.takeError();
  return run({*cxx, "-shared", "-o", output, object, "-Wl,--whole-archive", *rt,
              "-Wl,--no-whole-archive", "-Wl,-z,noexecstack", "-lm", "-ldl"});
}
