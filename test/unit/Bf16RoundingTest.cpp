//===- Bf16RoundingTest.cpp - float and double to bfloat16 -----------------===//
//
// Against the definition: the result is the bfloat16 nearest to the value
// (the two neighbours' distances compared in long double), a tie goes to the
// even one, beyond the largest finite bfloat16 by half an ulp is infinity,
// and NaN stays NaN with its sign. Every 31st float bit pattern, and doubles
// near halfway points where rounding through float would round twice.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/Bf16Rounding.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

float floatOfBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

long double bf16Value(uint16_t bits) { return floatOfBits(static_cast<uint32_t>(bits) << 16); }

/// The nearest bfloat16 by the definition, for finite values.
uint16_t nearestBf16(long double value) {
  float asFloat = static_cast<float>(value); // only to find the neighbours
  uint32_t bits;
  std::memcpy(&bits, &asFloat, sizeof bits);
  uint16_t low = static_cast<uint16_t>(bits >> 16);
  // The candidates around `value`: low, and its neighbours on both sides.
  uint16_t best = low;
  long double bestDistance = INFINITY;
  for (int step = -1; step <= 1; ++step) {
    uint16_t candidate = static_cast<uint16_t>(low + step);
    if ((candidate & 0x7f80) == 0x7f80 && (candidate & 0x7f) != 0)
      continue; // NaN patterns
    long double distance = std::fabs(bf16Value(candidate) - value);
    bool tieToEven = distance == bestDistance && (candidate & 1) == 0;
    if (distance < bestDistance || tieToEven) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // Halfway past the largest finite bfloat16 (or more) is infinity.
  long double limit = bf16Value(0x7f7f) + (bf16Value(0x7f7f) - bf16Value(0x7f7e)) / 2;
  if (std::fabs(value) >= limit)
    return std::signbit(value) ? 0xff80 : 0x7f80;
  return best;
}

} // namespace

TEST_CASE("float to bfloat16 is the nearest bfloat16, ties to even", "[bf16]") {
  for (uint64_t u = 0; u <= 0xffffffffull; u += 31) {
    float value = floatOfBits(static_cast<uint32_t>(u));
    if (std::isnan(value))
      continue;
    uint16_t got = tcc::roundToBf16Bits(value);
    uint16_t want = nearestBf16(value);
    if (got != want)
      FAIL("float bits " << std::hex << u << ": got " << got << ", want " << want);
  }
  // Exact ties: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
  CHECK(tcc::roundToBf16Bits(1.0f + 0x1p-8f) == 0x3f80);
  CHECK(tcc::roundToBf16Bits(1.0f + 3 * 0x1p-8f) == 0x3f82);
  CHECK(tcc::roundToBf16Bits(-0.0f) == 0x8000);
  CHECK(tcc::roundToBf16Bits(INFINITY) == 0x7f80);
}

TEST_CASE("NaN stays a quiet NaN with its sign", "[bf16]") {
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffc00001u}) {
    uint16_t got = tcc::roundToBf16Bits(floatOfBits(bits));
    CHECK((got & 0x7f80) == 0x7f80);
    CHECK((got & 0x40) != 0);
    CHECK((got & 0x8000) == ((bits >> 16) & 0x8000));
  }
  CHECK((tcc::roundToBf16Bits(static_cast<double>(NAN)) & 0x7fc0) == 0x7fc0);
}

TEST_CASE("double to bfloat16 rounds once", "[bf16]") {
  // Just above a tie: through float, 1 + 2^-8 + 2^-40 would become the tie
  // 1 + 2^-8 and go to even (1); rounded once it is above half (1 + 2^-7).
  CHECK(tcc::roundToBf16Bits(1.0 + 0x1p-8 + 0x1p-40) == 0x3f81);
  CHECK(tcc::roundToBf16Bits(1.0 + 0x1p-8 - 0x1p-40) == 0x3f80);
  CHECK(tcc::roundToBf16Bits(1.0 + 0x1p-8) == 0x3f80);
  CHECK(tcc::roundToBf16Bits(-(1.0 + 0x1p-8 + 0x1p-40)) == 0xbf81);
  CHECK(tcc::roundToBf16Bits(1e300) == 0x7f80);
  CHECK(tcc::roundToBf16Bits(-1e300) == 0xff80);
  CHECK(tcc::roundToBf16Bits(1e-300) == 0x0000);
  // Doubles around every tie and every bfloat16 of a range of exponents,
  // subnormals included.
  for (uint32_t hi = 0x0000; hi < 0x7f80; hi += 3) {
    double base = bf16Value(static_cast<uint16_t>(hi));
    double next = bf16Value(static_cast<uint16_t>(hi + 1));
    double half = base + (next - base) / 2;
    for (double value : {half, std::nextafter(half, 0.0), std::nextafter(half, INFINITY), base,
                         std::nextafter(base, INFINITY), -half, -std::nextafter(half, INFINITY)}) {
      uint16_t got = tcc::roundToBf16Bits(value);
      uint16_t want = nearestBf16(value);
      if (got != want)
        FAIL("double " << value << ": got " << std::hex << got << ", want " << want);
    }
  }
}
