// bf16 conversion: round to nearest with ties to even, NaN/inf/denormal handling, exact values.
#include <tilekit/runtime.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace {

float from_bits32(std::uint32_t u) {
  return std::bit_cast<float>(u);
}
std::uint16_t to_bf16_bits(std::uint32_t u) {
  return tk::bf16(from_bits32(u)).bits();
}

TEST(Bf16, ExactValuesRoundTrip) {
  for (float f : {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 3.0f, -1.5f, 256.0f, 1.0f / 1024, 0.15625f}) {
    const tk::bf16 b(f);
    EXPECT_EQ(static_cast<float>(b), f) << f;
  }
  EXPECT_EQ(tk::bf16(1.0f).bits(), 0x3f80);
  EXPECT_EQ(tk::bf16(-2.0f).bits(), 0xc000);
  EXPECT_EQ(tk::bf16(-0.0f).bits(), 0x8000);
}

TEST(Bf16, RoundsToNearest) {
  // 1 + 2^-8 + 2^-9 is above the halfway point between 1 and 1 + 2^-7.
  EXPECT_EQ(to_bf16_bits(0x3f80c000), 0x3f81);
  // Just below halfway rounds down.
  EXPECT_EQ(to_bf16_bits(0x3f807fff), 0x3f80);
  // Just above halfway rounds up.
  EXPECT_EQ(to_bf16_bits(0x3f808001), 0x3f81);
  // Negative values round by magnitude.
  EXPECT_EQ(to_bf16_bits(0xbf808001), 0xbf81);
}

TEST(Bf16, TiesGoToEven) {
  EXPECT_EQ(to_bf16_bits(0x3f808000), 0x3f80); // 0x3f80 is even: stays
  EXPECT_EQ(to_bf16_bits(0x3f818000), 0x3f82); // 0x3f81 is odd: goes up to even
  EXPECT_EQ(to_bf16_bits(0xbf818000), 0xbf82);
  // A tie whose rounding carries into the exponent: 1.99609375 + half ulp -> 2.0.
  EXPECT_EQ(to_bf16_bits(0x3fff8000), 0x4000);
}

TEST(Bf16, InfinityAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(tk::bf16(inf).bits(), 0x7f80);
  EXPECT_EQ(tk::bf16(-inf).bits(), 0xff80);
  // FLT_MAX is above the largest bf16 (0x7f7f) by more than half an ulp: rounds to inf.
  EXPECT_EQ(tk::bf16(std::numeric_limits<float>::max()).bits(), 0x7f80);
  // The largest bf16 itself stays finite.
  EXPECT_EQ(to_bf16_bits(0x7f7f0000), 0x7f7f);
  EXPECT_EQ(to_bf16_bits(0x7f7f7fff), 0x7f7f);
}

TEST(Bf16, NaNStaysNaN) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(static_cast<float>(tk::bf16(qnan))));
  // A signalling NaN whose payload lives only in the low 16 bits would truncate to inf.
  const tk::bf16 low_payload(from_bits32(0x7f800001));
  EXPECT_TRUE(std::isnan(static_cast<float>(low_payload)));
  EXPECT_EQ(low_payload.bits(), 0x7fc0);
  // The sign is kept, and a NaN near the top does not carry into the sign bit.
  EXPECT_EQ(to_bf16_bits(0xffffffff), 0xffff);
  EXPECT_EQ(to_bf16_bits(0xff800001), 0xffc0);
  EXPECT_FALSE(tk::bf16(qnan) == tk::bf16(qnan));
}

TEST(Bf16, Denormals) {
  // The smallest fp32 denormal is below half of the smallest bf16 denormal (2^-133): rounds to 0.
  EXPECT_EQ(to_bf16_bits(0x00000001), 0x0000);
  // The smallest bf16 denormal is exact.
  EXPECT_EQ(to_bf16_bits(0x00010000), 0x0001);
  EXPECT_EQ(static_cast<float>(tk::bf16::from_bits(0x0001)), from_bits32(0x00010000));
  // Exactly half of it is a tie between 0 (even) and 0x0001: goes to 0.
  EXPECT_EQ(to_bf16_bits(0x00008000), 0x0000);
  // A tie between 0x0001 (odd) and 0x0002 goes to 0x0002.
  EXPECT_EQ(to_bf16_bits(0x00018000), 0x0002);
  // The largest bf16 denormal rounding up becomes the smallest normal.
  EXPECT_EQ(to_bf16_bits(0x007fc000), 0x0080);
  EXPECT_EQ(to_bf16_bits(0x807fc000), 0x8080);
}

TEST(Bf16, EqualityComparesValues) {
  EXPECT_TRUE(tk::bf16(0.0f) == tk::bf16(-0.0f));
  EXPECT_NE(tk::bf16(0.0f).bits(), tk::bf16(-0.0f).bits());
  EXPECT_TRUE(tk::bf16(1.5f) == tk::bf16::from_bits(0x3fc0));
  EXPECT_FALSE(tk::bf16(1.5f) == tk::bf16(1.0f));
}

TEST(Bf16, EveryBitPatternRoundTrips) {
  // Widening is exact, so narrowing the widened value gives the same bits back (NaNs stay NaN).
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto x = tk::bf16::from_bits(static_cast<std::uint16_t>(b));
    const float f = static_cast<float>(x);
    if (std::isnan(f))
      ASSERT_TRUE(std::isnan(static_cast<float>(tk::bf16(f)))) << std::hex << b;
    else
      ASSERT_EQ(tk::bf16(f).bits(), b) << std::hex << b;
  }
}

TEST(Bf16, IsConstexpr) {
  static_assert(tk::bf16(1.0f).bits() == 0x3f80);
  static_assert(static_cast<float>(tk::bf16::from_bits(0x4040)) == 3.0f);
}

} // namespace
