// chunk-keys (tt, after batch-rows, before batch-sections): FlashAttention's online softmax over a
// chunk of k key tiles at a time. A key loop `for j in lo .. +n` whose body is the recurrence's
// sections, in this order (recognised from the CBs they hand each other, not from names):
//   score    s_j = Q·K_jᵀ (and its copy T for the row max), packed into S and T;
//   row max  mn = max(m, rowmax(T)), packed into MN, with m read from M;
//   c        c = exp(m − mn), packed into C;
//   p        p = exp(s − bcast_col(mn)), S popped, packed into P;
//   l        l = l·c + rowsum(p);
//   o        o[d] = o[d]·bcast_col(c) + p @ V_j[d], C and P popped;
//   m        m = mn, MN popped;
// runs as `for jc in 0 .. n / k` over chunks of k key tiles, then the n % k steps left as before.
// A chunk: the scores of its k key tiles, the row max folded over them (mn of key tile kk > 0 is
// max(mn, rowmax(T)): the row max section reading MN where it read M, the old MN popped after),
// c once, p for each of the k tiles against the chunk's max, then l once for the chunk, carried
// in DST (l = l·c + Σ_kk rowsum(p_kk): the first key tile's section sums every key tile's P, its
// wait for P widened to the chunk's tiles), then for each key tile o with the rescale by c only
// for the first (o[d] = o[d] + p @ V[d] for the others), and m = mn once. Over k tiles M = max(m,
// max_kk rowmax(s_kk)), C = exp(m − M), l' = l·C + Σ rowsum(exp(s_kk − M)), o' = o·C + Σ exp(s_kk −
// M) @ V_kk: exact in real arithmetic. k is the largest of 8, 4, 2 whose CBs fit in L1 (S and P
// hold k key tiles of the chunk's rows). Before batch-sections, so the output row's update of key
// tiles 1 .. k-1, without c's slot, is batched four tiles of D a section, not three. Legal when the
// loop's index is read only by the reader's streams, and S, P, C, MN and T are touched only by the
// sections named above (docs/lowering.md, "Key chunks").
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <cstdint>

namespace tk::lower {

ir::Module chunk_keys(const ir::Module& m, Diagnostics& diags);

namespace tt {
/// The key tiles one iteration of the key loop `f` covers: k for chunk-keys' loop over chunks
/// (`for jc in 0 .. n / k`), else 1 (price-q-chunk prices a key tile's step).
std::int64_t keys_per_step(const ir::For& f);
} // namespace tt

} // namespace tk::lower
