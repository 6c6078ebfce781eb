//===- Bf16Rounding.cpp - float and double to bfloat16, for generated code -===//
#include "tcc/Runtime/Bf16Rounding.h"

#include <cmath>
#include <cstring>

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace

uint16_t tcc::roundToBf16Bits(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, make it quiet
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t tcc::roundToBf16Bits(double value) {
  // Round to float by "round to odd" (truncate, then set the last bit when
  // inexact): float keeps 16 more mantissa bits than bfloat16, so rounding
  // that float to nearest is the same as rounding the double once.
  float rounded = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(rounded) == value)
    return roundToBf16Bits(rounded);
  uint32_t bits = bitsOf(rounded);
  if (std::fabs(static_cast<double>(rounded)) > std::fabs(value))
    bits -= 1; // the float below in magnitude: truncation
  return roundToBf16Bits(floatOf(bits | 1u));
}

// The libgcc names the x86 backend calls. A __bf16 comes back in the low 16
// bits of xmm0, where a float return puts its bits too.
extern "C" float __truncsfbf2(float value) { return floatOf(tcc::roundToBf16Bits(value)); }
extern "C" float __truncdfbf2(double value) { return floatOf(tcc::roundToBf16Bits(value)); }
