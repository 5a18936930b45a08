// Unit cases of the CPU chain: the shapes partition-threads, lower-gemm and lower-elementwise
// produce, checked as exact IR text (the examples are covered by golden_test.cpp).
#include "tests/unit/cpu_lowering/support.hpp"

namespace tk::lower {
namespace {

using test_cpu::cpu_dumps;
using test_cpu::dump_of;

// The function of the only program in a dump: from "  func" to the end of the program.
std::string function_of(const std::string& dump) {
  std::size_t at = dump.find("  func ");
  return at == std::string::npos ? dump : dump.substr(at);
}

// Literal extents multiply into the work-item count; i and j decode row-major from w.
TEST(PartitionThreads, LiteralRangesDecodeFromTheWorkItem) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel lit(x: bf16[128, N]) -> (y: bf16[128, N]) {
    parallel i in 0 .. 4, j in tiles(N) {
        y[i, j] = sigmoid(x[i, j]) * 2.0 - 1.0
    }
}
)",
                              &errors, "partition-threads");
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "partition-threads")),
            R"(  func kernel lit(x: tensor, y: tensor, N: i32) {
    let Nt: i32 = N / 32
    for w in 0 .. 4 * Nt per_thread {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
      store y[i, j] = tile.sub_scalar(tile.mul_scalar(tile.sigmoid(load x[i, j]), 2.0), 1.0)
    }
  }
}
)");
}

TEST(LowerCpu, PartialKMatmulIsNotTheGemmAndSelfBroadcastGoesThroughATemporary) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel partial(A: f32[M, 64], B: f32[64, N]) -> (C: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) {
        acc = zeros()
        for k in 0 .. 1 { acc += A[i, k] @ B[k, j] }
        C[i, j] = acc
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu partial(A: tensor, B: tensor, C: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in 0 .. Mt * Nt per_thread {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
      let acc: tile<f32> = cpu.tile()
      for er in 0 .. 32 serial {
        for ec in 0 .. 32 serial {
          cpu.tile_set(acc, er, ec, 0.0)
        }
      }
      for k in 0 .. 1 reduction {
        let t0: tile<f32> = cpu.tile()
        cpu.load_tile(A, i, k, t0)
        let t1: tile<f32> = cpu.tile()
        cpu.load_tile(B, k, j, t1)
        let t2: tile<f32> = cpu.tile()
        t2 = acc
        cpu.tile_matmul_acc(t0, t1, t2)
        for er in 0 .. 32 serial {
          for ec in 0 .. 32 serial {
            cpu.tile_set(acc, er, ec, cpu.tile_get(t2, er, ec))
          }
        }
      }
      cpu.store_tile(acc, C, i, j)
    }
  }
}
)");
}

TEST(LowerCpu, FullLiteralKIsTheGemm) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel full(A: f32[M, 64], B: f32[64, N]) -> (C: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) {
        acc = zeros()
        for k in 0 .. 2 { acc += A[i, k] @ B[k, j] }
        C[i, j] = acc
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu full(A: tensor, B: tensor, C: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    cpu.pack_a(A)
    cpu.pack_b(B)
    let units: i32 = cpu.gemm_units(A, B, Mt * Nt)
    for u in 0 .. units per_thread {
      let w0: i32 = cpu.gemm_unit_begin(A, B, Mt * Nt, u)
      let wn: i32 = cpu.gemm_unit_size(A, B, Mt * Nt, u)
      for w in w0 .. +wn serial {
        let i: i32 = cpu.gemm_row(A, B, w)
        let j: i32 = cpu.gemm_col(A, B, w)
        let acc: tile<f32> = cpu.tile()
        cpu.gemm_tile(A, B, i, j, acc)
        cpu.store_tile(acc, C, i, j)
      }
    }
  }
}
)");
}

// Batched products are the packed gemm too: each rank-3 operand is packed whole (every matrix)
// and indexed by its batch index, a batch of one by 0, a rank-2 operand (the same matrix for
// every batch, on either side) by 0. The tile order follows the first product.
TEST(LowerCpu, BatchedProductsAreTheGemm) {
  std::string errors;
  std::string all = cpu_dumps(
      R"(kernel bat(A: f32[B, M, K], X: f32[B, K, N], W: f32[1, K, N], V: f32[K, N], U: f32[M, K]) -> (C: f32[B, M, N]) {
    parallel b in 0 .. B, i in tiles(M), j in tiles(N) {
        acc = zeros()
        for k in tiles(K) { acc += A[b, i, k] @ X[b, k, j] }
        acc2 = zeros()
        for k in tiles(K) { acc2 += A[b, i, k] @ W[0, k, j] }
        acc3 = zeros()
        for k in tiles(K) { acc3 += A[b, i, k] @ V[k, j] }
        acc4 = zeros()
        for k in tiles(K) { acc4 += U[i, k] @ X[b, k, j] }
        C[b, i, j] = acc + acc2 + acc3 + acc4
    }
}
)",
      &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(
      function_of(dump_of(all, "lower-gemm")),
      R"(  func kernel bat(A: tensor, X: tensor, W: tensor, V: tensor, U: tensor, C: tensor, B: i32, M: i32, K: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    cpu.pack_a(A)
    cpu.pack_b(X)
    cpu.pack_b(W)
    cpu.pack_b(V)
    cpu.pack_a(U)
    let units: i32 = cpu.gemm_units(A, X, B * Mt * Nt)
    for u in 0 .. units per_thread {
      let w0: i32 = cpu.gemm_unit_begin(A, X, B * Mt * Nt, u)
      let wn: i32 = cpu.gemm_unit_size(A, X, B * Mt * Nt, u)
      for w in w0 .. +wn serial {
        let b: i32 = w / (Mt * Nt)
        let i: i32 = cpu.gemm_row(A, X, w)
        let j: i32 = cpu.gemm_col(A, X, w)
        let acc: tile<f32> = cpu.tile()
        cpu.gemm_batch_tile(A, b, X, b, i, j, acc)
        let acc2: tile<f32> = cpu.tile()
        cpu.gemm_batch_tile(A, b, W, 0, i, j, acc2)
        let acc3: tile<f32> = cpu.tile()
        cpu.gemm_batch_tile(A, b, V, 0, i, j, acc3)
        let acc4: tile<f32> = cpu.tile()
        cpu.gemm_batch_tile(U, 0, X, b, i, j, acc4)
        store C[b, i, j] = tile.add(tile.add(tile.add(acc, acc2), acc3), acc4)
      }
    }
  }
}
)");
}

// The work-item decode becomes the runtime's blocked tile order only when it is the row-major
// one over the gemm's own rows and columns: with j outermost it stays as it is, and B, which no
// loop then reads a column block at a time, is packed whole before the loop.
TEST(LowerCpu, OtherDecodesKeepTheirOrder) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel colmajor(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    parallel j in tiles(N), i in tiles(M) {
        acc = zeros()
        for k in tiles(K) { acc += A[i, k] @ B[k, j] }
        C[i, j] = acc
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-gemm")),
            R"(  func kernel colmajor(A: tensor, B: tensor, C: tensor, M: i32, K: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    cpu.pack_a(A)
    cpu.pack_b_whole(B)
    for w in 0 .. Nt * Mt per_thread {
      let j: i32 = w / Mt
      let i: i32 = w % Mt
      let acc: tile<f32> = cpu.tile()
      cpu.gemm_tile(A, B, i, j, acc)
      store C[i, j] = acc
    }
  }
}
)");
}

// A local named like the element loop variable pushes the loop variable to a fresh name, and a
// broadcast of the value being rebound reads the old value through a temporary.
TEST(LowerElementwise, FreshNamesAndSelfBroadcast) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel selfbcast(x: f32[M, N]) -> (y: f32[M, N]) {
    parallel i in tiles(M) {
        er = zeros()
        for j in tiles(N) { er = bcast_col(er) + colsum(x[i, j]) }
        for j in tiles(N) { y[i, j] = er }
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu selfbcast(x: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in 0 .. Mt per_thread {
      let er: tile<f32> = cpu.tile()
      for er_1 in 0 .. 32 serial {
        for ec in 0 .. 32 serial {
          cpu.tile_set(er, er_1, ec, 0.0)
        }
      }
      for j in 0 .. Nt reduction {
        let t1: tile<f32> = cpu.tile()
        let t0: tile<f32> = cpu.tile()
        cpu.load_tile(x, i, j, t0)
        cpu.colsum(t0, t0)
        for er_1 in 0 .. 32 serial {
          for ec in 0 .. 32 serial {
            cpu.tile_set(t1, er_1, ec, cpu.tile_get(er, er_1, 0) + cpu.tile_get(t0, er_1, ec))
          }
        }
        er = t1
      }
      for j in 0 .. Nt serial {
        cpu.store_tile(er, y, i, j)
      }
    }
  }
}
)");
}

// A row of tiles (docs/language.md, "Rows of tiles"): to-tile-ir binds it with row.alloc and a
// loop of row.set, reads tiles with row.get and updates them in place (`o = row.set(o, d, ...)`,
// carried across the k loop); the CPU chain keeps the row (tk::cpu::Row) and copies a tile out
// with cpu.row_get before computing with it and back with cpu.row_set.
TEST(LowerCpu, RowOfTilesIsAllocatedReadAndUpdatedInPlace) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel rows(x: bf16[M, N], w: bf16[N, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        o[d in tiles(N)] = x[i, d]
        for k in tiles(N) {
            for d in tiles(N) {
                o[d] = o[d] * 0.5 + x[i, k] @ w[k, d]
            }
        }
        for d in tiles(N) {
            y[i, d] = o[d]
        }
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "to-tile-ir")),
            R"(  func kernel rows(x: tensor, w: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in 0 .. Mt parallel {
      let o: row<f32> = row.alloc(Nt)
      for d in 0 .. Nt reduction {
        o = row.set(o, d, load x[i, d])
      }
      for k in 0 .. Nt reduction {
        for d in 0 .. Nt reduction {
          o = row.set(o, d, tile.add(tile.mul_scalar(row.get(o, d), 0.5), tile.matmul(load x[i, k], load w[k, d])))
        }
      }
      for d in 0 .. Nt serial {
        store y[i, d] = row.get(o, d)
      }
    }
  }
}
)");
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu rows(x: tensor, w: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in 0 .. Mt per_thread {
      let o: row<f32> = row.alloc(Nt)
      for d in 0 .. Nt reduction {
        let t0: tile<f32> = cpu.tile()
        cpu.load_tile(x, i, d, t0)
        cpu.row_set(o, d, t0)
      }
      for k in 0 .. Nt reduction {
        for d in 0 .. Nt reduction {
          let t1: tile<f32> = cpu.tile()
          let t2: tile<f32> = cpu.tile()
          cpu.row_get(o, d, t2)
          let t3: tile<f32> = cpu.tile()
          cpu.load_tile(x, i, k, t3)
          let t4: tile<f32> = cpu.tile()
          cpu.load_tile(w, k, d, t4)
          let t5: tile<f32> = cpu.tile()
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(t5, er, ec, 0.0)
            }
          }
          cpu.tile_matmul_acc(t3, t4, t5)
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(t1, er, ec, cpu.tile_get(t2, er, ec) * 0.5 + cpu.tile_get(t5, er, ec))
            }
          }
          cpu.row_set(o, d, t1)
        }
      }
      for d in 0 .. Nt serial {
        let t6: tile<f32> = cpu.tile()
        cpu.row_get(o, d, t6)
        cpu.store_tile(t6, y, i, d)
      }
    }
  }
}
)");
}

// A tile read only through bcast_col (one value per row, as attention's c and l) is computed in
// column 0 alone; the same tile also stored is computed whole (narrow_columns.hpp).
TEST(LowerElementwise, ColumnZeroOnlyTilesComputeColumnZero) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel rows(x: f32[M, N]) -> (y: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) {
        c = exp(x[i, j])
        y[i, j] = x[i, j] * bcast_col(c)
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu rows(x: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in 0 .. Mt * Nt per_thread {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
      let c: tile<f32> = cpu.tile()
      let t0: tile<f32> = cpu.tile()
      cpu.load_tile(x, i, j, t0)
      for er in 0 .. 32 serial {
        for ec in 0 .. 1 serial {
          cpu.tile_set(c, er, ec, f32.exp(cpu.tile_get(t0, er, ec)))
        }
      }
      let t1: tile<f32> = cpu.tile()
      let t2: tile<f32> = cpu.tile()
      cpu.load_tile(x, i, j, t2)
      for er in 0 .. 32 serial {
        for ec in 0 .. 32 serial {
          cpu.tile_set(t1, er, ec, cpu.tile_get(t2, er, ec) * cpu.tile_get(c, er, 0))
        }
      }
      cpu.store_tile(t1, y, i, j)
    }
  }
}
)");
  std::string stored = cpu_dumps(R"(kernel rows2(x: f32[M, N]) -> (y: f32[M, N], z: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) {
        c = exp(x[i, j])
        y[i, j] = x[i, j] * bcast_col(c)
        z[i, j] = c
    }
}
)",
                                 &errors);
  ASSERT_FALSE(stored.empty()) << errors;
  EXPECT_EQ(dump_of(stored, "lower-elementwise").find("0 .. 1 serial"), std::string::npos);
}

// A tile variable that a deeper loop reads as a matmul's A without writing it (attention's p in
// `o[d] = o[d] * c + p @ V[h, j, d]`) is packed once where it is written (cpu.pack_tile_a) and
// every product over d reads the packed copy (cpu.packed_tile_matmul_acc); a variable written in
// the loop that reads it (r here) keeps cpu.tile_matmul_acc, which packs its A on each call.
TEST(LowerElementwise, OperandReadByADeeperLoopIsPackedOnce) {
  std::string errors;
  std::string all = cpu_dumps(R"(kernel pv(x: bf16[M, N], w: bf16[N, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        o[d in tiles(N)] = zeros()
        for k in tiles(N) {
            p = exp(x[i, k])
            for d in tiles(N) {
                r = sigmoid(x[i, d])
                o[d] = o[d] + p @ w[k, d] + r @ w[k, d]
            }
        }
        for d in tiles(N) {
            y[i, d] = o[d]
        }
    }
}
)",
                              &errors);
  ASSERT_FALSE(all.empty()) << errors;
  EXPECT_EQ(function_of(dump_of(all, "lower-elementwise")),
            R"(  func cpu pv(x: tensor, w: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in 0 .. Mt per_thread {
      let o: row<f32> = row.alloc(Nt)
      for d in 0 .. Nt reduction {
        let t0: tile<f32> = cpu.tile()
        for er in 0 .. 32 serial {
          for ec in 0 .. 32 serial {
            cpu.tile_set(t0, er, ec, 0.0)
          }
        }
        cpu.row_set(o, d, t0)
      }
      for k in 0 .. Nt reduction {
        let p: tile<f32> = cpu.tile()
        let t1: tile<f32> = cpu.tile()
        cpu.load_tile(x, i, k, t1)
        for er in 0 .. 32 serial {
          for ec in 0 .. 32 serial {
            cpu.tile_set(p, er, ec, f32.exp(cpu.tile_get(t1, er, ec)))
          }
        }
        let p_pa: tile<f32> = cpu.tile()
        cpu.pack_tile_a(p, p_pa)
        for d in 0 .. Nt reduction {
          let r: tile<f32> = cpu.tile()
          let t2: tile<f32> = cpu.tile()
          cpu.load_tile(x, i, d, t2)
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(r, er, ec, f32.sigmoid(cpu.tile_get(t2, er, ec)))
            }
          }
          let t3: tile<f32> = cpu.tile()
          let t4: tile<f32> = cpu.tile()
          cpu.row_get(o, d, t4)
          let t5: tile<f32> = cpu.tile()
          cpu.load_tile(w, k, d, t5)
          let t6: tile<f32> = cpu.tile()
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(t6, er, ec, 0.0)
            }
          }
          cpu.packed_tile_matmul_acc(p_pa, t5, t6)
          let t7: tile<f32> = cpu.tile()
          cpu.load_tile(w, k, d, t7)
          let t8: tile<f32> = cpu.tile()
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(t8, er, ec, 0.0)
            }
          }
          cpu.tile_matmul_acc(r, t7, t8)
          for er in 0 .. 32 serial {
            for ec in 0 .. 32 serial {
              cpu.tile_set(t3, er, ec, cpu.tile_get(t4, er, ec) + cpu.tile_get(t6, er, ec) + cpu.tile_get(t8, er, ec))
            }
          }
          cpu.row_set(o, d, t3)
        }
      }
      for d in 0 .. Nt serial {
        let t9: tile<f32> = cpu.tile()
        cpu.row_get(o, d, t9)
        cpu.store_tile(t9, y, i, d)
      }
    }
  }
}
)");
}

} // namespace
} // namespace tk::lower
