// choose-blocks: decides how a matmul kernel is blocked (docs/lowering.md, "Blocked matmul").
// A kernel that is exactly the accumulation pattern
//     parallel i in tiles(M), j in tiles(N) { acc = zeros(); for k { acc += A[i, k] @ B[k, j] }
//                                             C[i, j] = f(acc) }
// (f element-wise, reading acc, row vectors at [0, j] and tiles of C's shape at [i, j], such as
// relu(acc + bcast_row(b[0, j])) + R[i, j];
// B[k, j] may also be transpose(B[j, k]) with B stored [N, K])
// gets its typed `blocking` (ir::Blocking), the compile-time half of the decision, which
// block-matmul follows: the DST sub-block (rows x cols: as many tiles as DST holds), the caps
// (the tiles the CBs of A, B and the partial sums hold, from their L1 shares), the costs (what the
// rule weighs, from the timing model's table: a tile product at the kernel's fidelity and a
// partial sum's round trip in cycles, a multicast's and the DRAM's bytes per cycle, a page of A
// and of B, a core's reads and a step's latency) and why (the reasoning, in words). The run-time
// half, the block's rows, columns and depth for the shape, is the host's call of the rule in
// include/tilekit/matmul_blocks.hpp with these as its limits. Every other kernel is left as it is.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <optional>
#include <string>

namespace tk::lower {

namespace tt {
/// The parts of a kernel that is the plain accumulation pattern.
struct MatmulPattern {
  std::string a, b, c;            // the tensors of C = A @ B
  std::string i, j, k;            // the loop variables
  std::string mt, kt, nt;         // the tile-count variables of M, K and N
  const ir::For* outer = nullptr; // the outermost parallel loop (over i, or the batch)
  /// What is stored, an element-wise expression of `acc` (the accumulator itself when nothing is
  /// fused), of `rows`, row-vector inputs read at [0, j] (a bias), and of `tiles`, inputs of C's
  /// shape read at C's indices (a residual).
  ir::Expr epilogue;
  std::string acc;
  std::vector<std::string> rows;
  /// C = A @ B^T: B is stored [N, K] and read as transpose(B[j, k]).
  bool transpose_b = false;
  /// A batch: `parallel b in 0 .. batch_size` outside i and j (then `outer` is that loop), A and
  /// C rank 3, B rank 3 too (b_batched) or one matrix for every b.
  std::string batch, batch_size;
  bool b_batched = false;
  std::vector<std::string> tiles;
};
/// The pattern in the kernel function of `p`, or nullopt.
std::optional<MatmulPattern> match_matmul(const ir::Program& p);
/// The type of the partial sums' CB, the running sum between K blocks: Float32 whatever C's
/// format, as TTNN's matmul factories choose their intermediate format when fp32_dest_acc_en
/// (every matmul here has an fp32 DST, tt::decide_dst_fp32). It is unpacked to DST only
/// (UnpackToDestFp32), so the sum stays exact across K blocks; in C's format it was rounded after
/// every block (tests/difftest/sums_blocked_matmul_long_k.tk).
inline constexpr ir::DType kPartialsDtype = ir::DType::f32;
} // namespace tt

ir::Module choose_blocks(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
