// Shared by the end-to-end tests and the demo: seeded random matrices, the comparison of a
// kernel's output with a double-precision reference (element bound + PCC) and with the reference
// interpreter (interp/), timing, the device.
#pragma once

#include "interp/interp.hpp"

#include <tilekit/runtime.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tk::e2e {

enum class Backend { cpu, tt };
const char* to_string(Backend b);
/// How GoogleTest prints a Backend parameter: `cpu`, `tt`.
void PrintTo(Backend b, std::ostream* os);

/// An owning row-major matrix that hands out the views generated kernels take.
template <class T>
struct Matrix {
  Matrix(std::int64_t r, std::int64_t c)
      : rows(r), cols(c), data(static_cast<std::size_t>(r * c)) {}
  MatrixView<T> view() { return {data.data(), rows, cols}; }
  MatrixView<const T> cview() const { return {data.data(), rows, cols}; }
  double at(std::int64_t r, std::int64_t c) const {
    return static_cast<double>(static_cast<float>(data[static_cast<std::size_t>(r * cols + c)]));
  }
  std::int64_t rows;
  std::int64_t cols;
  std::vector<T> data;
};

/// A row-major rows x cols matrix of reference values.
struct Reference {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> value; // what the kernel computes, in exact arithmetic on its inputs
  std::vector<double> bound; // the largest |got - value| accepted, element by element
  // The largest |mean of (got - value)| accepted over the whole output; NaN: not checked.
  double bias_bound = std::numeric_limits<double>::quiet_NaN();
};

using Rng = std::mt19937_64;
/// Uniform in [lo, hi], rounded to T; the same seed gives the same matrix on every machine
/// (the conversion from the raw 64-bit draws is written out, not left to <random>'s distributions).
Matrix<bf16> random_bf16(std::int64_t rows, std::int64_t cols, double lo, double hi, Rng& rng);
Matrix<float> random_f32(std::int64_t rows, std::int64_t cols, double lo, double hi, Rng& rng);

/// bf16 outputs: |got - ref| <= atol + rtol * |ref| with rtol = atol = 1.6e-2 (about four bf16
/// ulps at 1.0: the output rounding plus bf16 intermediates on the device).
inline constexpr double kBf16Tol = 1.6e-2;
/// Every output must also correlate with its reference: Pearson coefficient >= 0.999.
inline constexpr double kMinPcc = 0.999;
/// The mean signed error over an output (its bias) must stay within this fraction of the mean
/// element bound. Rounding to nearest is unbiased, so its mean error over thousands of elements is
/// far smaller; a sum that drifts (a carried value truncated once per iteration) is biased and can
/// hide inside every element's bound and behind a PCC of 0.99999.
inline constexpr double kBiasFraction = 1.0 / 8;
/// Sets ref.bound to the bf16 rule above, and ref.bias_bound to kBiasFraction of its mean.
void set_bf16_bound(Reference& ref);

/// The result of one run: `ok` when every element is within its bound, PCC >= kMinPcc and the
/// bias is within its bound;
/// `detail` names the first offending elements otherwise.
struct Outcome {
  bool ok = false;
  double max_abs_err = 0; // against the C++ reference
  double pcc = 0;
  double bias = 0;               // mean signed error against the C++ reference
  double bias_bound = 0;         // ref.bias_bound (NaN: not checked)
  double interp_max_abs_err = 0; // against the interpreter (verify())
  double interp_pcc = 0;
  double seconds = 0;
  std::string detail;
};
template <class T>
Outcome compare(const Matrix<T>& got, const Reference& ref);
double pearson(const std::vector<double>& a, const std::vector<double>& b);

/// The interpreter and the C++ reference are both double and differ only in summation order:
/// they must agree within kInterpAgreement * (1 + |ref|).
inline constexpr double kInterpAgreement = 1e-12;

/// The values of `m` (exact: bf16 and f32 widen to double without rounding).
template <class T>
interp::Matrix to_interp(const Matrix<T>& m);

/// Every check of one run of examples/<example>.tk whose output `output` came back as `got`:
/// the interpreter runs the example on `inputs` (the values the target was given) and must agree
/// with `ref` within kInterpAgreement; `got` is compared with `ref` (max_abs_err, pcc) and with
/// the interpreter's output under the same bounds, ref.bound and kMinPcc (interp_max_abs_err,
/// interp_pcc). `ok` only when all three hold; `detail` says which did not.
template <class T>
Outcome verify(const std::string& example, const interp::Inputs& inputs, const std::string& output,
               const Matrix<T>& got, const Reference& ref);
/// The same for the kernel `kernel` of the .tk file `file` (a path).
template <class T>
Outcome verify_kernel(const std::string& file, const std::string& kernel,
                      const interp::Inputs& inputs, const std::string& output, const Matrix<T>& got,
                      const Reference& ref);

/// The emulated TT device, created on first use and shared by the whole process.
tt::tt_metal::distributed::MeshDevice& device();

/// Runs `f` once and returns the wall time in seconds.
template <class F>
double time_seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// What an example's run function takes instead of run_tt when no TT code was generated.
struct NoTt {};
/// Runs the CPU or the TT entry point of a kernel and returns its wall time.
template <class Cpu, class Tt>
double launch(Backend b, Cpu&& cpu, Tt&& tt) {
  if (b == Backend::cpu)
    return time_seconds(cpu);
  if constexpr (std::is_same_v<std::decay_t<Tt>, NoTt>)
    throw std::logic_error("TT code was not generated for this example");
  else
    return time_seconds(tt);
}

} // namespace tk::e2e
