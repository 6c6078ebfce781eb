//===- RandomState.h - the state random operators draw from ---------------===//
//
// Internal to the frontend. torch.rand, randn, randint, bernoulli and their
// _like forms draw new numbers on every call. tcc's generator is
// counter-based (each element's value is a hash of the state, the node's
// stream and the element's position; tcc_graph.random), so a program that
// draws gets one more buffer, `tcc.random_state` (one int64, initially 0),
// which every call reads and advances by one: the model instance keeps it as
// it keeps any buffer the forward writes (reset_state starts the sequence
// again, and writing the state chooses another). The numbers differ from
// PyTorch's generator; their distributions are PyTorch's.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_RANDOMSTATE_H
#define TCC_LIB_FRONTEND_RANDOMSTATE_H

#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

/// When `program` has a random operator: adds the state buffer (input spec,
/// graph input, initial data in `constants`), gives each random node the
/// state as operand `tcc.random_state` and its own stream number as argument
/// `tcc.random_stream`, and writes state + 1 back (a buffer mutation).
void attachRandomState(ExportedProgram &program);

} // namespace tcc::frontend

#endif // TCC_LIB_FRONTEND_RANDOMSTATE_H
