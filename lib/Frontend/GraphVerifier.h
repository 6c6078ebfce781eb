//===- GraphVerifier.h - every value used is defined first ----------------===//
//
// Internal to the frontend. Later stages walk ExportedProgram::nodes in order
// and look values up by name; this check makes that walk safe.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_GRAPHVERIFIER_H
#define TCC_LIB_FRONTEND_GRAPHVERIFIER_H

#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

/// Checks that every value a node or graph output uses is a graph input or an
/// output of an earlier node, that no value is defined twice, that every
/// tensor value has metadata, and that the signature has one spec per graph
/// input and output. Throws FrontendError naming the node and the value.
void verifyGraph(const ExportedProgram &program);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_GRAPHVERIFIER_H
