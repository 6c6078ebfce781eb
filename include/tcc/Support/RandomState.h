//===- RandomState.h - names and constants of tcc's random numbers ---------===//
//
// tcc's random operators (lib/Frontend/RandomState.h) are counter-based:
// element i of the draw with stream k under state s holds the 64 bits
//   mix(mix(s * kRandomStateMultiplier + k * kRandomStreamMultiplier)
//       + (i + 1) * kRandomStateMultiplier)
// where mix is SplitMix64's finalizer. The frontend, the legalizers and the
// lowering agree on the names and constants here.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_RANDOMSTATE_H
#define TCC_SUPPORT_RANDOMSTATE_H

#include <cstdint>

namespace tcc {

/// The buffer a drawing program gains (its name in the manifest's states),
/// also the name of the operand of each random operator that reads it...
inline constexpr const char *kRandomState = "tcc.random_state";
/// ...and the argument that gives the operator its stream number
/// (tcc_graph.operator, before legalization).
inline constexpr const char *kRandomStreamArgument = "tcc.random_stream";

inline constexpr uint64_t kRandomStateMultiplier = 0x9E3779B97F4A7C15ull;
inline constexpr uint64_t kRandomStreamMultiplier = 0xD1B54A32D192ED03ull;
inline constexpr uint64_t kRandomMix1 = 0xBF58476D1CE4E5B9ull;
inline constexpr uint64_t kRandomMix2 = 0x94D049BB133111EBull;

/// SplitMix64's finalizer (the lowering builds the same arithmetic).
constexpr uint64_t randomMix(uint64_t z) {
  z = (z ^ (z >> 30)) * kRandomMix1;
  z = (z ^ (z >> 27)) * kRandomMix2;
  return z ^ (z >> 31);
}

/// The 64 bits of element `index` of stream `stream` under `state`.
constexpr uint64_t randomBits(uint64_t state, uint64_t stream, uint64_t index) {
  uint64_t key = randomMix(state * kRandomStateMultiplier + stream * kRandomStreamMultiplier);
  return randomMix(key + (index + 1) * kRandomStateMultiplier);
}

} // namespace tcc

#endif // TCC_SUPPORT_RANDOMSTATE_H
