// The consumer project's program: one bf16 matmul through run_cpu (and run_tt when generated),
// checked against a double reference with the e2e tolerance (|err| <= 1.6e-2 * (1 + |ref|)).
#include "matmul.hpp"

#ifdef CONSUMER_HAS_TT
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/mesh_device.hpp>
#endif

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr std::int64_t M = 64, N = 96, K = 32;

bool check(const char* what, const std::vector<tk::bf16>& a, const std::vector<tk::bf16>& b,
           const std::vector<tk::bf16>& c) {
  double worst = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (std::int64_t k = 0; k < K; ++k)
        ref += static_cast<double>(static_cast<float>(a[i * K + k])) *
               static_cast<double>(static_cast<float>(b[k * N + j]));
      const double err = std::abs(static_cast<double>(static_cast<float>(c[i * N + j])) - ref);
      worst = std::max(worst, err);
      ok = ok && err <= 1.6e-2 * (1 + std::abs(ref));
    }
  std::printf("consumer: matmul %lldx%lldx%lld %s: max |err| %.3g %s\n", static_cast<long long>(M),
              static_cast<long long>(N), static_cast<long long>(K), what, worst,
              ok ? "ok" : "FAIL");
  return ok;
}

} // namespace

int main() {
  std::vector<tk::bf16> a(M * K), b(K * N), c(M * N);
  for (std::int64_t i = 0; i < M * K; ++i)
    a[i] = static_cast<float>((i * 7 % 19) - 9) / 16.0f;
  for (std::int64_t i = 0; i < K * N; ++i)
    b[i] = static_cast<float>((i * 5 % 17) - 8) / 32.0f;
  const tk::MatrixView<const tk::bf16> A{a.data(), M, K}, B{b.data(), K, N};
  const tk::MatrixView<tk::bf16> C{c.data(), M, N};
  tk::gen::matmul::run_cpu(A, B, C);
  bool ok = check("run_cpu", a, b, c);
#ifdef CONSUMER_HAS_TT
  auto device = tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
  std::fill(c.begin(), c.end(), tk::bf16(0.0f));
  tk::gen::matmul::run_tt(*device, A, B, C);
  ok = check("run_tt", a, b, c) && ok;
#endif
  return ok ? 0 : 1;
}
