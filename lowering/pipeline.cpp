#include "lowering/pipeline.hpp"

#include "dsl/print.hpp"
#include "lowering/cpu/lower_elementwise.hpp"
#include "lowering/cpu/lower_gemm.hpp"
#include "lowering/cpu/partition_threads.hpp"
#include "lowering/front/infer_layout.hpp"
#include "lowering/front/lower_reductions.hpp"
#include "lowering/front/materialise.hpp"
#include "lowering/front/to_tile_ir.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/ir/verifier.hpp"
#include "lowering/tt/assign_cbs.hpp"
#include "lowering/tt/attach_accessors.hpp"
#include "lowering/tt/batch_rows.hpp"
#include "lowering/tt/batch_sections.hpp"
#include "lowering/tt/bind_runtime_args.hpp"
#include "lowering/tt/block_matmul.hpp"
#include "lowering/tt/block_products.hpp"
#include "lowering/tt/choose_blocks.hpp"
#include "lowering/tt/chunk_keys.hpp"
#include "lowering/tt/chunk_rows.hpp"
#include "lowering/tt/elide_configs.hpp"
#include "lowering/tt/finalize_signature.hpp"
#include "lowering/tt/fission_rows.hpp"
#include "lowering/tt/fold_scale.hpp"
#include "lowering/tt/fold_scale_args.hpp"
#include "lowering/tt/guard_fast_exp.hpp"
#include "lowering/tt/insert_cb_protocol.hpp"
#include "lowering/tt/insert_compute_init.hpp"
#include "lowering/tt/insert_dst_management.hpp"
#include "lowering/tt/keep_rows.hpp"
#include "lowering/tt/multicast_reads.hpp"
#include "lowering/tt/partition_work.hpp"
#include "lowering/tt/peel_mask.hpp"
#include "lowering/tt/plan_buffers.hpp"
#include "lowering/tt/price_q_chunk.hpp"
#include "lowering/tt/select_tile_ops.hpp"
#include "lowering/tt/split_kernels.hpp"
#include "lowering/tt/stream_rows.hpp"
#include "lowering/tt/target.hpp"
#include "lowering/tt/to_core_loop.hpp"
#include "lowering/tt/verify_kernels.hpp"
#include "lowering/verify_behind.hpp"

#include <array>
#include <chrono>
#include <memory>
#include <ostream>

namespace tk::lower {

namespace {

// ---- the tables of contents ---------------------------------------------------------------------
// One row per stage, in order; a target's chain is kFront followed by its own table.
constexpr Stage kFront[] = {
    {"to-tile-ir",
     "the checked AST as tile IR: one kernel function, parallel and sequential "
     "loops, tile loads, tile ops, tile stores",
     nullptr},
    {"lower-reductions",
     "a kernel with reduction variables as two programs: per-chunk partial results over the "
     "parallel space, then their combine and the statements after it",
     lower_reductions},
    {"infer-layout", "every tensor in DRAM, interleaved, 32x32 tiles, one tile per page",
     infer_layout},
};

// select-tile-ops runs before assign-cbs: the intermediate CBs exist only once the tile ops are
// selected (docs/lowering.md, "Stages").
constexpr Stage kTT[] = {
    {"materialise",
     "a computed operand of @ invariant in a parallel index: recomputed, kept in L1, or written "
     "to a scratch DRAM tensor by one program and read by the next (the choice, by the timing "
     "model or the structural rule, in the program's `materialise` line)",
     materialise_tt},
    {"plan-buffers",
     "a circular buffer per tensor (inputs 0-7, outputs 16-23) and the reduce "
     "scaler: format, page, depth",
     plan_buffers},
    {"attach-accessors", "TensorAccessor compile-time args of every DRAM tensor", attach_accessors},
    {"choose-blocks",
     "a plain C = A @ B kernel gets its blocking: the DST sub-block, the CB capacities and the "
     "run-time rule for the block's rows, columns and depth",
     choose_blocks},
    {"block-matmul",
     "a blocked matmul as blocks of C per work item: A and B read a block per K step and "
     "reused, matmul_block on DST sub-blocks, partial sums through cb_partials",
     block_matmul},
    {"partition-work",
     "the host plan function: work items split over the core grid like "
     "split_work_to_cores",
     partition_work},
    {"to-core-loop",
     "the parallel loops as one per_core loop over [start, start+count), "
     "indices decoded from the linear id",
     to_core_loop},
    {"keep-rows",
     "a row several loops read, read once per work item into a CB and kept in L1 (the tiles "
     "past the CB's capacity still streamed)",
     keep_rows},
    {"stream-rows",
     "a row of tiles a loop walks, fixed for the loop, read as one block with one barrier into a "
     "double-buffered window, before the outermost loop in which it is fixed",
     stream_rows},
    {"fold-scale",
     "with @options(exp_approx_mode), a score's `s * f` (f an f32 parameter > 0) that only max, "
     "+, -, broadcasts and masks carry into exps: the multiply dropped, each exp(x) as exp(x * f), "
     "the approximate ones with f in the exp's init",
     fold_scale},
    {"select-tile-ops",
     "TT compute primitives on CBs and DST slots, packs, waits and pops; "
     "abstract tile streams to and from DRAM; intermediate CBs",
     select_tile_ops},
    {"chunk-rows",
     "a work item of q rows sharing each key step's windows (q from @options(q_chunk = q), else "
     "the host's Q chunk rule at run time), the rows' state cycling through their CBs in FIFO "
     "order",
     chunk_rows},
    {"peel-mask",
     "a key loop masked by tril(i, j): the steps below every row's diagonal (j < i) in a loop of "
     "their own without the mask, the diagonal steps as before",
     peel_mask},
    {"fission-rows",
     "a chunk's row loop in a key loop as one loop per DST section, each section for all the "
     "chunk's rows before the next; a tile one section hands the next read at the row's index, "
     "waited for once for all the rows",
     fission_rows},
    {"batch-rows",
     "a loop over a chunk's rows whose body is one DST section: the rows in batches of as many "
     "as DST holds, each statement for the batch's rows in turn, each init once per batch",
     batch_rows},
    {"chunk-keys",
     "a key loop of the online softmax over chunks of k key tiles: the scores and the row max "
     "of the chunk's tiles, c = exp(m - mn) once, p against the chunk's max, l and o with the "
     "rescale by c only for the chunk's first tile, m = mn once",
     chunk_keys},
    {"batch-sections",
     "a loop over a row of tiles whose body is one DST section of one tile: batches of as many "
     "tiles as DST holds in one section, each operation's init once per batch",
     batch_sections},
    {"assign-cbs", "CB indices in their role's range, intermediate depths, the L1 budget",
     assign_cbs},
    {"split-kernels", "reader, compute and writer functions, each with only the loops it needs",
     split_kernels},
    {"multicast-reads",
     "core-grid kernels: a block read alike along a grid row (column) read by its first core and "
     "multicast to the others; the handshake's per-core values in host_core, its semaphores",
     multicast_reads},
    {"bind-runtime-args",
     "runtime args read with get_arg_val, tensor accessors from compile-time "
     "args, size lets moved to the host plan",
     bind_runtime_args},
    {"fold-scale-args",
     "the scale an approximate exp's init folds in: a compile-time arg of the compute kernel, "
     "its bits set by the host, which checks it is > 0",
     fold_scale_args},
    {"insert-cb-protocol",
     "reader: reserve, NoC read, barrier, push; writer: wait, NoC write, "
     "barrier, pop",
     insert_cb_protocol},
    {"block-products",
     "a run of tile products sharing one operand (rows of in0 a proved stride apart, or columns "
     "of in1 side by side) as one matmul_block per step, each tile unpacked once per call",
     block_products},
    {"insert-compute-init",
     "compute_kernel_hw_startup and the init of each compute op where "
     "the op or its CBs change",
     insert_compute_init},
    {"insert-dst-management",
     "tile_regs_acquire/commit/wait/release around each DST section, "
     "packs into reserved pages",
     insert_dst_management},
    {"guard-fast-exp",
     "the unclamped approximate exp's packs with the packer's ReLU on, off before any other pack; "
     "where anything but a pack reads its DST slot, the clamped exp instead",
     guard_fast_exp},
    {"elide-configs",
     "the format reconfigurations and inits that set what every path reaching them already set "
     "left out; a reconfiguration every iteration of a loop repeats set once before it",
     elide_configs},
    {"price-q-chunk",
     "the Q chunk rule's step costs: one query row's key step of the compute kernel priced by "
     "the timing model's table at D = 64 and 128",
     price_q_chunk},
    {"finalize-signature",
     "the host plan: buffers, kernels with processors and configs, "
     "runtime and compile args",
     finalize_signature},
    {"verify-kernels",
     "CB balance across the kernels, CB indices, L1, DST phases and slots, runtime args",
     verify_kernels},
};

constexpr Stage kCPU[] = {
    {"materialise",
     "a computed operand of @ invariant in a parallel index: written once to an f32 scratch "
     "tensor by one loop nest and read by the next, rather than recomputed",
     materialise_cpu},
    {"partition-threads",
     "the parallel space as one per_thread loop over its work items, "
     "handed out by the thread pool",
     partition_threads},
    {"lower-gemm",
     "the matmul accumulation pattern as the packed cpu.gemm_tile, its operands packed once "
     "before the per_thread loop",
     lower_gemm},
    {"lower-elementwise",
     "fp32 tile buffers, fused element loops over 32x32 blocks, runtime tile helpers",
     lower_elementwise},
};

std::span<const Stage> target_table(Target t) {
  return t == Target::tt ? std::span<const Stage>(kTT) : std::span<const Stage>(kCPU);
}

const Stage* find_stage(const std::vector<Stage>& chain, std::string_view name) {
  for (const Stage& s : chain)
    if (s.name == name)
      return &s;
  return nullptr;
}

bool wants_dump(const PipelineOptions& o, std::string_view stage, bool unchanged) {
  return o.print_after_all || o.print_after.count(std::string(stage)) ||
         (o.print_changed && !unchanged);
}

void dump(const PipelineOptions& o, std::string_view stage, const ir::Module& m, bool unchanged) {
  if (!o.dump || !wants_dump(o, stage, unchanged))
    return;
  *o.dump << "// after " << stage << '\n';
  if (unchanged)
    *o.dump << "(unchanged)\n";
  else
    *o.dump << ir::print(m);
}

void dump_before(const PipelineOptions& o, std::string_view stage, const ir::Module& m) {
  if (o.dump && o.print_before.count(std::string(stage)))
    *o.dump << "// before " << stage << '\n' << ir::print(m);
}

/// Runs `f` and appends its wall time to opts.times under `stage`.
template <class F>
auto timed(const PipelineOptions& o, std::string_view stage, F&& f) {
  auto start = std::chrono::steady_clock::now();
  auto result = f();
  if (o.times)
    o.times->push_back({std::string(stage), std::chrono::duration<double, std::milli>(
                                                std::chrono::steady_clock::now() - start)
                                                .count()});
  return result;
}

// The architecture a program names (ttgen --arch, or an IR dump's `options arch`) is one of
// arch/'s, and its grid fits it; reported as the user's error before the verifier sees them.
bool check_arch_options(const ir::Module& m, Diagnostics& diags) {
  for (const ir::Program& p : m.programs) {
    const std::string& name = tt::options(p).arch;
    if (!name.empty() && arch::find(name) == nullptr) {
      diags.error("program '" + p.name + "' targets an unknown architecture '" + name +
                  "'; the known ones are " + arch::names());
      return false;
    }
    // A grid given for another architecture (@options(grid), --grid, a dump's) must fit this one.
    const arch::ArchSpec& a = tt::arch_of(p);
    if (const ir::Grid g = tt::option_grid(p);
        g.x < 1 || g.y < 1 || g.x > std::int64_t{a.grid_x} || g.y > std::int64_t{a.grid_y}) {
      diags.error("program '" + p.name + "': grid " + std::to_string(g.x) + "x" +
                  std::to_string(g.y) + " does not fit " + arch::describe(a) + "; " +
                  arch::grid_sides(a, " must be"));
      return false;
    }
  }
  return true;
}

} // namespace

std::string_view to_string(Target t) {
  return t == Target::tt ? "tt" : "cpu";
}

std::optional<Target> target_from_string(std::string_view s) {
  if (s == "tt")
    return Target::tt;
  if (s == "cpu")
    return Target::cpu;
  return std::nullopt;
}

std::vector<Stage> stages(Target t) {
  std::vector<Stage> out(std::begin(kFront), std::end(kFront));
  for (const Stage& s : target_table(t))
    out.push_back(s);
  return out;
}

void apply_overrides(ir::Module& m, const OptionOverrides& o) {
  for (ir::Program& p : m.programs) {
    if (o.materialise) // materialise's own request (ttgen report prices the other alternative)
      p.attrs["materialise"] = {*o.materialise};
    if (!o.arch && !o.grid && !o.cb_depth && !o.fp32_acc && !o.math_fidelity && !o.exp_approx_mode)
      continue;
    ir::Options& opts = p.options ? *p.options : p.options.emplace();
    if (o.arch)
      opts.arch = *o.arch;
    if (o.grid)
      opts.grid = *o.grid;
    if (o.cb_depth)
      opts.cb_depth = *o.cb_depth;
    if (o.fp32_acc)
      opts.fp32_acc = *o.fp32_acc;
    if (o.math_fidelity)
      opts.math_fidelity = *o.math_fidelity;
    if (o.exp_approx_mode)
      opts.exp_approx_mode = *o.exp_approx_mode;
  }
}

bool check_stage_names(const PipelineOptions& opts, Target t, Diagnostics& diags) {
  std::vector<Stage> chain = stages(t);
  bool ok = true;
  auto check = [&](const std::string& n, const char* flag) {
    if (find_stage(chain, n))
      return;
    diags.error("unknown stage '" + n + "' in " + flag + " for target " +
                std::string(to_string(t)) + "; see --list-stages");
    ok = false;
  };
  if (opts.stop_after)
    check(*opts.stop_after, "--stop-after");
  for (const std::string& n : opts.print_after)
    check(n, "--print-after");
  for (const std::string& n : opts.print_before)
    check(n, "--print-before");
  return ok;
}

std::optional<ir::Module> resume_pipeline(ir::Module m, std::string_view after_stage, Target t,
                                          const PipelineOptions& opts, Diagnostics& diags) {
  if (!check_stage_names(opts, t, diags))
    return std::nullopt;
  std::vector<Stage> chain = stages(t);
  std::size_t i = 0;
  while (i < chain.size() && chain[i].name != after_stage)
    ++i;
  if (i == chain.size())
    throw InternalError("internal error: resume after unknown stage '" + std::string(after_stage) +
                        "'");
  if (opts.stop_after) {
    std::size_t stop = 0;
    while (chain[stop].name != *opts.stop_after)
      ++stop;
    if (stop <= i) {
      diags.error("--stop-after=" + *opts.stop_after +
                  " names a stage that already ran: the input "
                  "is the IR after '" +
                  std::string(after_stage) + "'");
      return std::nullopt;
    }
  }
  if (!check_arch_options(m, diags))
    return std::nullopt;
  // Each stage's module is verified one stage behind the chain, on a thread of its own, unless
  // stages are dumped (verify_behind.hpp). It takes precedence over what a later stage reports.
  const bool dumps = opts.dump && (opts.print_after_all || opts.print_changed ||
                                   !opts.print_after.empty() || !opts.print_before.empty());
  VerifyBehind verifier(!dumps);
  auto cur = std::make_shared<ir::Module>(std::move(m));
  // A stage that returned its module untouched (ir::identical) leaves nothing new to verify once
  // that module was: about half the stages of a chain change nothing for a given kernel.
  bool cur_verified = false;
  try {
    for (++i; i < chain.size(); ++i) {
      const Stage& s = chain[i];
      dump_before(opts, s.name, *cur);
      auto next =
          std::make_shared<ir::Module>(timed(opts, s.name, [&] { return s.run(*cur, diags); }));
      if (diags.has_errors()) {
        verifier.finish();
        return std::nullopt;
      }
      const bool unchanged = ir::identical(*cur, *next);
      if (opts.verify_each && !(unchanged && cur_verified)) {
        verifier.check(next, std::string(s.name));
        cur_verified = true;
      }
      dump(opts, s.name, *next, unchanged);
      cur = std::move(next);
      if (opts.stop_after && *opts.stop_after == s.name)
        break;
    }
  } catch (...) {
    verifier.finish(); // a broken module before the stage that threw is the error to report
    throw;
  }
  verifier.finish();
  // The verifier holds no module once finished: `cur` is the last owner.
  return std::move(*cur);
}

std::optional<ir::Module> run_pipeline(const dsl::Module& ast, Target t,
                                       const PipelineOptions& opts, Diagnostics& diags) {
  if (!check_stage_names(opts, t, diags))
    return std::nullopt;
  if (opts.dump && opts.print_before.count("to-tile-ir"))
    *opts.dump << "// before to-tile-ir\n" << dsl::print(ast);
  ir::Module m = timed(opts, "to-tile-ir",
                       [&] { return to_tile_ir(ast, diags, opts.overrides.arch.value_or("")); });
  if (diags.has_errors())
    return std::nullopt;
  if (!opts.source.empty())
    m.attrs["source"] = {opts.source};
  apply_overrides(m, opts.overrides);
  if (!check_arch_options(m, diags))
    return std::nullopt;
  if (opts.verify_each)
    ir::verify(m, "to-tile-ir");
  dump(opts, "to-tile-ir", m, false);
  if (opts.stop_after && *opts.stop_after == "to-tile-ir")
    return m;
  return resume_pipeline(std::move(m), "to-tile-ir", t, opts, diags);
}

std::optional<ir::Module> run_pipeline_from_dump(const SourceFile& file, Target t,
                                                 const PipelineOptions& opts, Diagnostics& diags) {
  if (!check_stage_names(opts, t, diags))
    return std::nullopt;
  std::optional<Dump> d = read_dump(file, t, diags);
  if (!d)
    return std::nullopt;
  return run_pipeline_from_dump(std::move(*d), t, opts, diags);
}

std::optional<Dump> read_dump(const SourceFile& file, Target t, Diagnostics& diags) {
  std::optional<std::string> after = ir::read_stage_header(file.text());
  const SourceFile* saved = diags.file();
  diags.set_file(&file);
  SourceRange first_line{0, static_cast<std::uint32_t>(file.line(1).size())};
  if (!after) {
    diags.error(first_line, "an IR dump must start with '// after <stage>'");
  } else if (!find_stage(stages(t), *after)) {
    diags.error(first_line, "unknown stage '" + *after + "' for target " +
                                std::string(to_string(t)) + "; see --list-stages");
  }
  diags.set_file(saved);
  if (diags.has_errors())
    return std::nullopt;
  std::optional<ir::Module> m = ir::read_module(file, diags);
  if (!m)
    return std::nullopt;
  return Dump{std::move(*m), *after};
}

std::optional<ir::Module> run_pipeline_from_dump(Dump d, Target t, const PipelineOptions& opts,
                                                 Diagnostics& diags) {
  apply_overrides(d.module, opts.overrides);
  if (!check_arch_options(d.module, diags))
    return std::nullopt;
  if (opts.verify_each)
    ir::verify(d.module, d.after);
  return resume_pipeline(std::move(d.module), d.after, t, opts, diags);
}

} // namespace tk::lower
