#!/usr/bin/env bash
# `ttgen check` on TTNN op kernels and on programming-example triples of a tt-metal source tree
# (docs/check.md, "TTNN kernels"): each program's reader, compute and writer together, with the defines and compile-time args its program
# factory gives them, must give no error (an error on shipped code is a false alarm). Then every
# protocol mutation is planted in a scratch copy of each kernel, one at a time, at every call site
# of its kind — a dropped push, pop or reserve (cb_* call or Device 2.0 method), swapped
# tile_regs_commit/tile_regs_wait, swapped acquire_dst/release_dst — and must be found (exit 1).
# A mutation that leaves ttgen check's output unchanged is on a line the program's defines and
# compile-time args compile out (an inactive #if or `if constexpr` branch): counted as inert.
#
#   scripts/ttnn_check.sh TT_METAL_DIR [TTGEN]
#
# TTNN_CHECK_ONLY=REGEX checks only the programs whose name matches.
# TTNN_CHECK_SDK=1 passes `--sdk TT_METAL_DIR` to every ttgen check it runs: the data-movement
# kernels are then parsed against the tree's real headers, the compute kernels against the mirror
# (ttgen check prints a note per compute kernel saying so: their LLK headers include sfpi.h, which
# ships with the SFPI toolchain, not with the tree; docs/check.md).
#
# A dropped last pop of a kernel that runs once only leaves a page in its CB at the end (ttgen check
# says so and proves the rest): counted as equivalent, not planted.
# Nothing of tt-metal is copied into this repository: the mutated copies live in a scratch
# directory. A mutant that does not compile (ttgen check exits 2) is not planted: counted apart.
# Last line: "P programs, F false alarms (S errors of a shipped bug); M mutations planted, K found,
# X missed, I inert, E equivalent, N not planted (do not compile)".
# Exit status 0 when there is no false alarm and every planted mutation was found.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tt="$(cd "${1:?usage: scripts/ttnn_check.sh TT_METAL_DIR [TTGEN]}" && pwd)"
ttgen="${2:-$here/build/ci/tools/ttgen/ttgen}"
ops="$tt/ttnn/cpp/ttnn/operations"
[[ -d "$ops" ]] || { echo "ttnn_check: $ops: no such directory" >&2; exit 2; }
work="$(mktemp -d /tmp/tk_ttnn_check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
sdk=""
if [[ -n "${TTNN_CHECK_SDK:-}" && "${TTNN_CHECK_SDK}" != 0 ]]; then
  sdk="--sdk $tt"
  echo "ttnn_check: every ttgen check with --sdk $tt"
fi

# name | ttgen check options | reader | compute | writer (relative to the tree) [| library files
# the kernels include whose call sites get mutations too | an extended regex of the error lines of
# a shipped bug, which are not false alarms]. Defines as the
# program factories set them (eltwise/binary/device/binary_device_operation utils:
# ELTWISE_OP_TYPE/ELTWISE_OP; data_movement/bcast/bcast_types.cpp get_defines: BCAST_OP,
# BCAST_LLKOP, BCAST_DIM); compile-time args as the factories append them: the reader's
# block_or_width_sharded flag, then one TensorAccessorArgs per interleaved buffer (two words each
# on the emulator's mirror), the writer's output CB then its accessor.
o=ttnn/cpp/ttnn/operations
ub=$o/eltwise/unary/device/kernels/dataflow
eb=$o/eltwise/binary/device/kernels
bc=$o/data_movement/bcast/device/kernels
rd=$o/reduction/generic/device/kernels
sm=$o/normalization/softmax/device/kernels/attention
kl=ttnn/cpp/ttnn/kernel_lib
# Programming examples: compile-time args as their hosts give them (read from the compile.cmd the
# emulator's JIT leaves beside each kernel it builds, scripts/sdk_examples.sh). Left out: the
# examples with a shipped protocol bug (add_2_integers_in_compute, vecadd_multi_core: an error there
# is a real bug, docs/sdk_examples.md) and those with more than one kernel of a role. --cb gives a
# CB's pages where the host's size matters to a proof (matmul_single_core.cpp: 2 tiles each).
pe=tt_metal/programming_examples
programs=(
  "binary_add|-DELTWISE_OP_TYPE=EltwiseBinaryType::ELWADD -DELTWISE_OP=add_tiles --compile-args reader=0,2,2048,2,2048 --compile-args writer=2,2,2048|$eb/dataflow/reader_binary_interleaved_start_id.cpp|$eb/compute/eltwise_binary_kernel.cpp|$ub/writer_unary_interleaved_start_id.cpp"
  "binary_mul|-DELTWISE_OP_TYPE=EltwiseBinaryType::ELWMUL -DELTWISE_OP=mul_tiles --compile-args reader=0,2,2048,2,2048 --compile-args writer=2,2,2048|$eb/dataflow/reader_binary_interleaved_start_id.cpp|$eb/compute/eltwise_binary_kernel.cpp|$ub/writer_unary_interleaved_start_id.cpp"
  "bcast_h|-DBCAST_OP=add_tiles_bcast -DBCAST_LLKOP=ELWADD -DBCAST_DIM=BroadcastType::ROW --compile-args reader=2,2048,2,2048 --compile-args writer=2,2048|$bc/dataflow/reader_bcast_h_interleaved_input_rows_partitioned.cpp|$bc/compute/bcast_h.cpp|$bc/dataflow/writer_unary_interleaved_input_cols_batched.cpp"
  "bcast_w|-DBCAST_OP=mul_tiles_bcast -DBCAST_LLKOP=ELWMUL -DBCAST_DIM=BroadcastType::COL --compile-args reader=2,2048,2,2048 --compile-args writer=2,2048|$bc/dataflow/reader_bcast_w_interleaved_input_cols_partitioned.cpp|$bc/compute/bcast_w.cpp|$bc/dataflow/writer_unary_interleaved_input_cols_batched.cpp"
  "example_eltwise_binary|--compile-args reader=2,2048,2,2048 --compile-args writer=2,2048|$pe/eltwise_binary/kernels/dataflow/read_tiles.cpp|$pe/eltwise_binary/kernels/compute/tiles_add.cpp|$pe/eltwise_binary/kernels/dataflow/write_tile.cpp"
  "example_eltwise_sfpu|--compile-args reader=2,2048 --compile-args writer=2,2048|$pe/eltwise_sfpu/kernels/dataflow/read_tile.cpp|$pe/eltwise_sfpu/kernels/compute/eltwise_sfpu.cpp|$pe/eltwise_sfpu/kernels/dataflow/write_tile.cpp"
  "example_sfpu_eltwise_chain|--compile-args reader=0,1,2,2048 --compile-args compute=0,1,2 --compile-args writer=2,2,2048|$pe/sfpu_eltwise_chain/kernels/dataflow/reader.cpp|$pe/sfpu_eltwise_chain/kernels/compute/compute.cpp|$pe/sfpu_eltwise_chain/kernels/dataflow/writer.cpp"
  "example_matmul_single_core|--cb c_0=2 --cb c_1=2 --cb c_16=2 --compile-args reader=2,2048,2,2048 --compile-args compute=20,20,20 --compile-args writer=2,2048|$pe/matmul/matmul_single_core/kernels/dataflow/reader_single_core_mm.cpp|$pe/matmul/matmul_single_core/kernels/compute/mm.cpp|$pe/matmul/matmul_single_core/kernels/dataflow/writer_single_core_mm.cpp"
  "example_matmul_multi_core|--compile-args reader=2,2048,2,2048 --compile-args writer=2,2048|$pe/matmul/matmul_multi_core/kernels/dataflow/reader_mm_output_tiles_partitioned.cpp|$pe/matmul/matmul_multi_core/kernels/compute/mm.cpp|$pe/matmul/matmul_multi_core/kernels/dataflow/writer_unary_interleaved_start_id.cpp"
  # Reduce (reduction/generic: reduce_op_multi_core_w/h_program_factory.cpp, reduce_op.cpp
  # get_defines; the W reader's args: the scaler's bits (1.0f) then its accessor, the H reader's:
  # Ht, Wt, HtWt, the scaler's bits, use_welford 0, its accessor, with the DEST defines; the
  # writer's: the output CB c_3 then its accessor; the compute kernel's Ht, Wt, NC). Its compute kernel is one
  # call of TTNN's compute_kernel_lib::reduce (kernel_lib/reduce_helpers_compute.inl), the
  # reader's scaler tile comes from dataflow_kernel_lib::prepare_reduce_scaler: the mutations go
  # into those helpers too.
  "reduce_w_sum|-DREDUCE_OP=ckernel::PoolType::SUM -DREDUCE_DIM=ckernel::ReduceDim::REDUCE_ROW --compile-args reader=1065353216,2,2048 --compile-args compute=2,4,1 --compile-args writer=3,2,2048|$rd/dataflow/reader_unary_reduce_universal_start_id.cpp|$rd/compute/reduce.cpp|$ub/writer_unary_interleaved_start_id.cpp|$kl/reduce_helpers_compute.inl $kl/reduce_helpers_dataflow.inl"
  "reduce_h_max|-DREDUCE_OP=ckernel::PoolType::MAX -DREDUCE_DIM=ckernel::ReduceDim::REDUCE_COL -DENABLE_FP32_DEST_ACC=0 -DDST_SYNC_FULL=0 --compile-args reader=4,2,8,1065353216,0,2,2048 --compile-args compute=4,2,1 --compile-args writer=3,2,2048|$rd/dataflow/reader_unary_transpose_wh_universal_input_cols_partitioned.cpp|$rd/compute/reduce.cpp|$ub/writer_unary_interleaved_start_id.cpp|$kl/reduce_helpers_compute.inl $kl/reduce_helpers_dataflow.inl"
  # Softmax (normalization/softmax: softmax_program_factory_attention_optimized.cpp, no mask,
  # numerically stable; its compute kernel takes runtime args only; the writer's args:
  # num_datum_padded, the tile's 1024 elements, its accessor). The writer fills the mask CB c_5
  # through get_write_ptr and pushes it without cb_reserve_back (lines 40, 43, 49): a shipped
  # bug (docs/check.md), so those three errors are expected.
  "softmax|-DEXP_APPROX=0 -DENABLE_FP32_DEST_ACC=0 -DNUMERIC_STABLE=1 --compile-args $sm/dataflow/reader_unary_interleaved_sm.cpp=2,2048 --compile-args $sm/dataflow/writer_unary_interleaved_start_id_blocked_sm.cpp=0,1024,2,2048|$sm/dataflow/reader_unary_interleaved_sm.cpp|$sm/compute/softmax.cpp|$sm/dataflow/writer_unary_interleaved_start_id_blocked_sm.cpp|$kl/reduce_helpers_compute.inl $kl/reduce_helpers_dataflow.inl|writer_unary_interleaved_start_id_blocked_sm\.cpp:(40|43|49):[0-9]+: error:"
  "bcast_hw|-DBCAST_OP=sub_tiles_bcast -DBCAST_LLKOP=ELWSUB -DBCAST_DIM=BroadcastType::SCALAR --compile-args reader=2,2048,2,2048 --compile-args writer=2,2048|$bc/dataflow/reader_bcast_hw_interleaved_partitioned.cpp|$bc/compute/bcast_hw.cpp|$bc/dataflow/writer_unary_interleaved_input_cols_batched.cpp"
)

# ttgen check of one program; prints "exit STATUS" then its output with the scratch directory's
# paths written as the originals'. The include list is the JIT's for the tree's root, ttnn and
# ttnn/cpp (tt_metal/jit_build/build.cpp); the options come first, so a mutated library file
# (-I of the scratch directory) is found before the original.
check() { # options files...
  local opts="$1"
  shift
  # shellcheck disable=SC2086
  (cd "$tt" && "$ttgen" check $sdk $opts -I "$tt" -I "$tt/ttnn" -I "$tt/ttnn/cpp" "$@" 2>&1; echo "exit $?") |
    sed "s|$work/m/||g"
}

# Line numbers of the call sites of a mutation kind in file $2 (not in a // comment).
sites() { # kind file
  local re
  case "$1" in
    drop_push) re='(cb_push_back|\.push_back)\(' ;;
    drop_pop) re='(cb_pop_front|\.pop_front)\(' ;;
    drop_reserve) re='(cb_reserve_back|\.reserve_back)\(' ;;
    swap_commit_wait) re='^[ \t]*tile_regs_commit\(\);' ;;
    swap_acquire_release) re='^[ \t]*acquire_dst\(\);' ;;
  esac
  awk -v re="$re" '$0 ~ re && $0 !~ /^[ \t]*\/\// { print NR }' "$2"
}

# Writes file $2 with mutation $1 at line $3 into $4.
mutate() { # kind file line out
  local kind="$1" file="$2" line="$3" out="$4" partner
  case "$kind" in
    drop_*) sed "${line}s/.*//" "$file" > "$out" ;;
    swap_commit_wait | swap_acquire_release)
      local want='tile_regs_wait\(\);'
      [[ "$kind" == swap_acquire_release ]] && want='release_dst\(\);'
      partner="$(awk -v from="$line" -v re="$want" 'NR > from && $0 ~ re { print NR; exit }' "$file")"
      [[ -n "$partner" ]] || return 1
      awk -v a="$line" -v b="$partner" 'NR == FNR { l[FNR] = $0; next }
        FNR == a { print l[b]; next } FNR == b { print l[a]; next } { print }' "$file" "$file" > "$out" ;;
  esac
}

false_alarms=0 planted=0 found=0 inert=0 missed=0 equivalent=0 not_compiling=0 checked=0
known_bugs=0
for p in "${programs[@]}"; do
  IFS='|' read -r name opts reader compute writer libs known <<< "$p"
  [[ -z "${TTNN_CHECK_ONLY:-}" || "$name" =~ ${TTNN_CHECK_ONLY:-} ]] || continue
  checked=$((checked + 1))
  base="$(check "$opts" "$reader" "$compute" "$writer")"
  status="$(tail -1 <<< "$base")"
  base_errors="$(grep ': error:' <<< "$base" | sort)"
  unexpected="$(grep ': error:' <<< "$base" | { [[ -n "$known" ]] && grep -Ev "$known" || cat; })"
  known_here="$(grep ': error:' <<< "$base" | { [[ -n "$known" ]] && grep -Ec "$known" || echo 0; })"
  warnings="$(grep -c ': warning:' <<< "$base")"
  if [[ -n "$unexpected" || ("$status" != "exit 0" && "$known_here" -eq 0) ]]; then
    errors="$(grep -c ': error:' <<< "$unexpected")"
    false_alarms=$((false_alarms + (errors > 0 ? errors : 1)))
    echo "FALSE ALARM  $name: $status, $(grep -m1 -E ': error:|error:' <<< "${unexpected:-$base}" | cut -c1-200)"
    continue
  fi
  known_bugs=$((known_bugs + known_here))
  if ((known_here > 0)); then
    echo "OK     $name: only the shipped bug's $known_here error(s), $warnings warning(s) (what it cannot prove)"
  else
    echo "OK     $name: no error, $warnings warning(s) (what it cannot prove)"
  fi
  for role in reader compute writer $libs; do
    case "$role" in
      reader | compute | writer) file="${!role}" ;;
      *) file="$role" ;;
    esac
    for kind in drop_push drop_pop drop_reserve swap_commit_wait swap_acquire_release; do
      for line in $(sites "$kind" "$tt/$file"); do
        rm -rf "$work/m"
        mkdir -p "$work/m/$(dirname "$file")"
        mutate "$kind" "$tt/$file" "$line" "$work/m/$file" || continue
        args=("$reader" "$compute" "$writer")
        case "$role" in
          reader) args[0]="$work/m/$file" ;;
          compute) args[1]="$work/m/$file" ;;
          writer) args[2]="$work/m/$file" ;;
        esac
        # A kernel's copy finds its own folder's includes; a library file's copy is found first.
        # Compile-time args given by the kernel's path go to its copy.
        mopts="${opts//--compile-args $file=/--compile-args $work/m/$file=}"
        out="$(check "$mopts -I $work/m -I $tt/$(dirname "$file")" "${args[@]}")"
        # A mutant that does not compile (ttgen check exits 2: the edit broke a statement that
        # spans lines) is not a mutant: not planted, counted apart.
        if [[ "$(tail -1 <<< "$out")" == "exit 2" ]]; then
          not_compiling=$((not_compiling + 1))
          echo "  not planted (does not compile) $kind $file:$line: $(grep -m1 'error:' <<< "$out" | cut -c1-150)"
          continue
        fi
        if [[ "$out" == "$base" ]]; then
          inert=$((inert + 1))
          echo "  inert   $kind $file:$line"
          continue
        fi
        # Dropping the last pop of a kernel that runs once leaves the page in its CB at the end:
        # no wait blocks and no value changes (each program starts with its CBs empty), so the
        # mutant is equivalent to the program, not a protocol bug.
        if [[ "$kind" == drop_pop && "$(tail -1 <<< "$out")" == "exit 0" ]] &&
          grep -q "left in the CB at the end, which it holds" <<< "$out" &&
          ! grep -q "left in the CB at the end, which it holds" <<< "$base"; then
          equivalent=$((equivalent + 1))
          echo "  equivalent $kind $file:$line: $(grep -m1 'left in the CB at the end' <<< "$out" | cut -c1-150)"
          continue
        fi
        planted=$((planted + 1))
        # Found: ttgen check reports a bug the shipped program does not have.
        if [[ "$(tail -1 <<< "$out")" == "exit 1" &&
          -n "$(comm -13 <(echo "$base_errors") <(grep ': error:' <<< "$out" | sort))" ]]; then
          found=$((found + 1))
          echo "  found   $kind $file:$line: $(comm -13 <(echo "$base_errors") <(grep ': error:' <<< "$out" | sort) | head -1 | sed 's/.*error: //' | cut -c1-150)"
        else
          missed=$((missed + 1))
          echo "  MISSED  $kind $file:$line ($(tail -1 <<< "$out"))"
        fi
      done
    done
  done
done
echo "$checked programs, $false_alarms false alarms ($known_bugs errors of a shipped bug); $planted mutations planted, $found found, $missed missed, $inert inert, $equivalent equivalent, $not_compiling not planted (do not compile)"
((false_alarms == 0 && missed == 0))
