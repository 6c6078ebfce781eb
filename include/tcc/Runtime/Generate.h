//===- Generate.h - a generation loop over a decoder with a cache ---------===//
//
// tcc_model_generate (include/tcc/runtime.h): the prompt, then a token per
// call, each chosen from the last logits, on a Model whose state is the
// key/value cache. The loop is the runtime's, so that the C ABI, `tcc
// generate` and the Python loader share it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_GENERATE_H
#define TCC_RUNTIME_GENERATE_H

#include "tcc/runtime.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tcc {

class Model;

/// Why `model` cannot run tcc_model_generate's loop ("" when it can): its
/// inputs and outputs must be those of a decoder (runtime.h, Generation).
std::string generateInterfaceError(const Model &model);

/// The next token of each of `batch` rows from their logits (`vocab` values
/// of `dtype` each, a row every `rowStride` elements): the argmax, or with
/// topK > 1 a sample among the topK largest at `temperature` drawn from `rng`.
/// Ties go to the lowest id, as torch.argmax.
void chooseTokens(const void *logits, int32_t dtype, int64_t batch, int64_t vocab,
                  int64_t rowStride, int32_t topK, float temperature, std::mt19937_64 &rng,
                  int64_t *next);

/// tcc_model_generate. Throws RuntimeError.
void generate(Model &model, const int64_t *prompt, int32_t batch, int32_t promptLen,
              const tcc_generate_options &options, int64_t *tokens, int32_t *numTokens,
              tcc_generate_stats *stats);

} // namespace tcc

#endif // TCC_RUNTIME_GENERATE_H
