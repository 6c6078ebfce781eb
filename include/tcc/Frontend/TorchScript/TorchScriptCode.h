//===- TorchScriptCode.h - a graph from a torch.jit.save archive's code ---===//
//
// A torch.jit.save archive keeps each module's methods as code in
// TorchScript's serialized Python subset (code/__torch__/...py). For a traced
// module that code is straight-line: assignments of calls to torch.* and
// ops.*, submodule calls `(lin).forward(x, )`, lists, tuples, CONSTANTS.cN.
// This reader executes it symbolically into the same TsGraph a dump gives,
// inlining submodule calls, so the archive alone is enough to compile.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTCODE_H
#define TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTCODE_H

#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"
#include "tcc/Frontend/TorchScript/TorchScriptGraph.h"

namespace tcc::frontend::torchscript {

/// The inlined graph of the root module's forward. Throws FrontendError
/// naming the code file and line for control flow, calls to functions
/// (scripted code) and anything else outside the straight-line subset,
/// with the advice to pass a graph dump or use torch.export.
TsGraph graphFromArchiveCode(const TorchScriptArchive &archive, bool inputShapesGiven = false);

} // namespace tcc::frontend::torchscript

#endif // TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTCODE_H
