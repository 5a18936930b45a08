// The comparisons, random inputs and device of the end-to-end tests (harness.hpp).
#include "tests/e2e/harness.hpp"

#include "dsl/check.hpp"
#include "parser/parse.hpp"

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/mesh_device.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace tk::e2e {

const char* to_string(Backend b) {
  return b == Backend::cpu ? "cpu" : "tt";
}

void PrintTo(Backend b, std::ostream* os) {
  *os << to_string(b);
}

namespace {
template <class T>
Matrix<T> random_matrix(std::int64_t rows, std::int64_t cols, double lo, double hi, Rng& rng) {
  Matrix<T> m(rows, cols);
  for (auto& v : m.data) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53; // [0, 1), 53 random bits
    v = T(static_cast<float>(lo + (hi - lo) * u));
  }
  return m;
}
} // namespace

Matrix<bf16> random_bf16(std::int64_t rows, std::int64_t cols, double lo, double hi, Rng& rng) {
  return random_matrix<bf16>(rows, cols, lo, hi, rng);
}
Matrix<float> random_f32(std::int64_t rows, std::int64_t cols, double lo, double hi, Rng& rng) {
  return random_matrix<float>(rows, cols, lo, hi, rng);
}

void set_bf16_bound(Reference& ref) {
  ref.bound.resize(ref.value.size());
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    ref.bound[i] = kBf16Tol + kBf16Tol * std::abs(ref.value[i]);
  double sum = 0;
  for (double b : ref.bound)
    sum += b;
  ref.bias_bound =
      ref.bound.empty() ? 0 : kBiasFraction * sum / static_cast<double>(ref.bound.size());
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa == 0 || sbb == 0) // a constant output correlates only with an identical one
    return a == b ? 1.0 : 0.0;
  return sab / std::sqrt(saa * sbb);
}

template <class T>
Outcome compare(const Matrix<T>& got, const Reference& ref) {
  Outcome out;
  if (got.rows != ref.rows || got.cols != ref.cols) {
    out.detail = "output is " + std::to_string(got.rows) + "x" + std::to_string(got.cols) +
                 ", reference " + std::to_string(ref.rows) + "x" + std::to_string(ref.cols);
    return out;
  }
  std::vector<double> g(ref.value.size());
  int bad = 0;
  for (std::int64_t r = 0; r < ref.rows; ++r) {
    for (std::int64_t c = 0; c < ref.cols; ++c) {
      const auto i = static_cast<std::size_t>(r * ref.cols + c);
      g[i] = got.at(r, c);
      const double err = std::abs(g[i] - ref.value[i]);
      if (!(err <= ref.bound[i])) { // also catches NaN
        if (bad++ < 5) {
          char line[160];
          std::snprintf(line, sizeof line,
                        "  (%lld, %lld): got %.8g, want %.8g, |err| %.3g > bound %.3g\n",
                        static_cast<long long>(r), static_cast<long long>(c), g[i], ref.value[i],
                        err, ref.bound[i]);
          out.detail += line;
        }
      }
      if (!(err <= out.max_abs_err))
        out.max_abs_err = err; // NaN sticks
    }
  }
  out.pcc = pearson(g, ref.value);
  // The bias: the mean signed error (a drift hides inside every element's bound and the PCC).
  double signed_sum = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    signed_sum += g[i] - ref.value[i];
  const auto n = static_cast<double>(std::max<std::size_t>(g.size(), 1));
  out.bias = signed_sum / n;
  out.bias_bound = ref.bias_bound;
  const bool unbiased = std::isnan(ref.bias_bound) || std::abs(out.bias) <= ref.bias_bound;
  if (bad > 0)
    out.detail = std::to_string(bad) + " of " + std::to_string(g.size()) +
                 " elements outside their bound:\n" + out.detail;
  if (!(out.pcc >= kMinPcc))
    out.detail += "PCC " + std::to_string(out.pcc) + " < " + std::to_string(kMinPcc) + "\n";
  if (!unbiased) {
    char line[160];
    std::snprintf(line, sizeof line, "mean signed error %.4g exceeds the bias bound %.4g\n",
                  out.bias, out.bias_bound);
    out.detail += line;
  }
  out.ok = bad == 0 && out.pcc >= kMinPcc && unbiased;
  return out;
}
template Outcome compare(const Matrix<bf16>&, const Reference&);
template Outcome compare(const Matrix<float>&, const Reference&);

template <class T>
interp::Matrix to_interp(const Matrix<T>& m) {
  interp::Matrix r(m.rows, m.cols);
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j)
      r.at(i, j) = m.at(i, j);
  return r;
}
template interp::Matrix to_interp(const Matrix<bf16>&);
template interp::Matrix to_interp(const Matrix<float>&);

namespace {

/// The kernel `name` of the .tk file `path`, parsed and checked once per process.
const dsl::Kernel& kernel_in(const std::string& path, const std::string& name) {
  static std::map<std::string, dsl::Module> modules;
  auto it = modules.find(path);
  if (it == modules.end()) {
    std::ifstream in(path);
    if (!in)
      throw std::runtime_error("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    SourceFile file(path, text.str());
    Diagnostics diags(&file);
    std::optional<dsl::Module> m = parser::parse(file, diags);
    if (!m || !dsl::check(*m, diags))
      throw std::runtime_error(path + " does not check:\n" + diags.str());
    it = modules.emplace(path, std::move(*m)).first;
  }
  for (const dsl::Kernel& k : it->second.kernels)
    if (k.name.name == name)
      return k;
  throw std::runtime_error(path + " has no kernel '" + name + "'");
}

/// The first elements where the interpreter and the C++ reference disagree, or "".
// A batched output is compared as its stacked rows (batch * rows), as the harness stores it.
std::string disagreement(const interp::Matrix& in, const Reference& ref) {
  if (in.batch * in.rows != ref.rows || in.cols != ref.cols)
    return "the interpreter's output is " + std::to_string(in.batch * in.rows) + "x" +
           std::to_string(in.cols) + ", the reference " + std::to_string(ref.rows) + "x" +
           std::to_string(ref.cols) + "\n";
  std::string detail;
  int bad = 0;
  for (std::size_t i = 0; i < ref.value.size(); ++i) {
    const double want = ref.value[i], err = std::abs(in.data[i] - want);
    if (!(err <= kInterpAgreement * (1 + std::abs(want))) && bad++ < 5) {
      char line[160];
      std::snprintf(line, sizeof line, "  (%lld, %lld): interpreter %.17g, reference %.17g\n",
                    static_cast<long long>(static_cast<std::int64_t>(i) / ref.cols),
                    static_cast<long long>(static_cast<std::int64_t>(i) % ref.cols), in.data[i],
                    want);
      detail += line;
    }
  }
  if (bad == 0)
    return "";
  char head[120];
  std::snprintf(head, sizeof head,
                "the interpreter and the C++ reference disagree (%d elements beyond %g * (1 + "
                "|ref|)):\n",
                bad, kInterpAgreement);
  return head + detail;
}

} // namespace

template <class T>
Outcome verify(const std::string& example, const interp::Inputs& inputs, const std::string& output,
               const Matrix<T>& got, const Reference& ref) {
  return verify_kernel(std::string(TK_E2E_EXAMPLES_DIR) + "/" + example + ".tk", example, inputs,
                       output, got, ref);
}
template Outcome verify(const std::string&, const interp::Inputs&, const std::string&,
                        const Matrix<bf16>&, const Reference&);
template Outcome verify(const std::string&, const interp::Inputs&, const std::string&,
                        const Matrix<float>&, const Reference&);

template <class T>
Outcome verify_kernel(const std::string& file, const std::string& kernel,
                      const interp::Inputs& inputs, const std::string& output, const Matrix<T>& got,
                      const Reference& ref) {
  Outcome out = compare(got, ref);
  const auto results = interp::run(kernel_in(file, kernel), inputs);
  const interp::Matrix& in = results.at(output);
  const std::string disagree = disagreement(in, ref);
  if (!disagree.empty()) {
    out.ok = false;
    out.detail += disagree;
    return out;
  }
  // The interpreter's values with the reference's bounds: the same tolerance, a second oracle.
  const Reference iref{in.batch * in.rows, in.cols, in.data, ref.bound};
  const Outcome vs = compare(got, iref);
  out.interp_max_abs_err = vs.max_abs_err;
  out.interp_pcc = vs.pcc;
  if (!vs.ok) {
    out.ok = false;
    out.detail += "against the interpreter: " + vs.detail;
  }
  return out;
}
template Outcome verify_kernel(const std::string&, const std::string&, const interp::Inputs&,
                               const std::string&, const Matrix<bf16>&, const Reference&);
template Outcome verify_kernel(const std::string&, const std::string&, const interp::Inputs&,
                               const std::string&, const Matrix<float>&, const Reference&);

tt::tt_metal::distributed::MeshDevice& device() {
  static const std::shared_ptr<tt::tt_metal::distributed::MeshDevice> dev =
      tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
  return *dev;
}

} // namespace tk::e2e
