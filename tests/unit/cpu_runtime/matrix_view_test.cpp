// MatrixView: element access and the implicit mutable -> const conversion kernels rely on.
#include <tilekit/runtime.hpp>

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

namespace {

float sum(tk::MatrixView<const float> v) {
  float s = 0;
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c)
      s += v(r, c);
  return s;
}

TEST(MatrixView, RowMajorAccess) {
  std::vector<float> d{1, 2, 3, 4, 5, 6};
  tk::MatrixView<float> v{d.data(), 2, 3};
  EXPECT_EQ(v(0, 2), 3.0f);
  EXPECT_EQ(v(1, 0), 4.0f);
  EXPECT_EQ(v.size(), 6);
  v(1, 1) = 50.0f;
  EXPECT_EQ(d[4], 50.0f);
}

TEST(MatrixView, ConvertsToConst) {
  std::vector<float> d{1, 2, 3, 4};
  tk::MatrixView<float> v{d.data(), 2, 2};
  EXPECT_EQ(sum(v), 10.0f); // implicit conversion at the call
  const tk::MatrixView<const float> c = v;
  EXPECT_EQ(c.data, d.data());
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.cols, 2);
  static_assert(std::is_convertible_v<tk::MatrixView<tk::bf16>, tk::MatrixView<const tk::bf16>>);
  static_assert(!std::is_convertible_v<tk::MatrixView<const float>, tk::MatrixView<float>>);
  static_assert(!std::is_convertible_v<tk::MatrixView<float>, tk::MatrixView<const tk::bf16>>);
}

} // namespace
