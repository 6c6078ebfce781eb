//===- HalfFloat.h - float16 and bfloat16 conversions by hand -------------===//
//
// Bit-level conversions between float/double and the 16-bit float formats,
// rounding to nearest even. Written out rather than left to the compiler:
// the runtime is linked into every model.so with the host's libgcc, which
// lacks helpers such as __truncsfbf2. Header-only, shared by the .npy reader
// and the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_HALFFLOAT_H
#define TCC_SUPPORT_HALFFLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tcc {

inline uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// IEEE binary16 to float (exact).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: renormalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return floatFromBits(bits);
}

/// bfloat16 to float (exact).
inline float bfloat16ToFloat(uint16_t h) {
  return floatFromBits(static_cast<uint32_t>(h) << 16);
}

/// float to bfloat16, to nearest even; NaN stays a (quiet) NaN.
inline uint16_t floatToBFloat16(float f) {
  uint32_t bits = floatBits(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// float to IEEE binary16, to nearest even (overflow to infinity, gradual
/// underflow through the subnormals); NaN stays a quiet NaN.
inline uint16_t floatToHalf(float f) {
  uint32_t x = floatBits(f);
  auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u)
    return sign | 0x7e00;
  uint32_t exp = x >> 23;
  if (exp >= 143) // at least 2^16 (or infinity)
    return sign | 0x7c00;
  if (exp >= 113) { // a normal half; a carry out of the mantissa rounds up the exponent
    uint32_t mant = x & 0x7fffffu;
    uint32_t h = ((exp - 112) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
      ++h;
    return static_cast<uint16_t>(sign | h);
  }
  if (exp == 0)
    return sign; // float subnormals are far below half's smallest
  // A half subnormal counts units of 2^-24: value / 2^-24 = mant * 2^(exp - 126).
  uint32_t mant = (x & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exp;
  if (shift > 25)
    return sign;
  uint32_t h = mant >> shift;
  uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

/// `d` rounded to float toward zero, with the last bit set where that was
/// inexact ("round to odd"): rounding the result once more to a format with
/// at most 22 significant bits (bfloat16, float16) then gives exactly the
/// nearest-even rounding of `d` itself, with no double-rounding error.
inline float roundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d)
    return f;
  uint32_t bits = floatBits(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d))
    --bits; // f was rounded away from zero: one step back toward it
  return floatFromBits(bits | 1u);
}

inline uint16_t doubleToBFloat16(double d) { return floatToBFloat16(roundToOddFloat(d)); }
inline uint16_t doubleToHalf(double d) { return floatToHalf(roundToOddFloat(d)); }

} // namespace tcc

#endif // TCC_SUPPORT_HALFFLOAT_H
