#!/usr/bin/env python3
"""The held-out check of the Blackhole timing model: Tenstorrent's published P150 matmuls.

arch/blackhole.hpp's timing table is built from documents only (docs/arch.md); the P150 rows of
tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (tenstorrent/tt-metal a8c5af0f5a26) were not used to set
it. This module lists them (ROWS); bench/calibrate.py projects them as it projects the N150 rows
(the TTNN-configuration baseline, `tk-baseline-matmul --algo ttnn_mcast`, in each row's
configuration, on an emulated P150, TK_EMULATOR_ARCH=blackhole, on the row's grid, without the
arithmetic) and writes them to --json with "arch": "blackhole" and "held_out": true.

  bench/gemm_flops_p150.py [calibrate.py's options]   # = calibrate.py --arch blackhole ...
"""
import pathlib
import sys

# (M, K, N, fidelity, configuration, grid (x, y), published device-based utilisation %): every
# GEMM_FLOPS.md P150 row with bf16 operands, in0, in1 and out in DRAM, and no trace, from the
# tables "P150 Out of Box Results (13x10 grid)" / "(11x10 grid)" and "P150 Manually Tuned
# Configurations (13x10 grid)" / "(11x10 grid)".
ROWS = [
    (640, 832, 832, "HiFi2", "out-of-box", (13, 10), 19.30),
    (640, 1664, 1664, "HiFi2", "out-of-box", (13, 10), 41.21),
    (640, 1664, 3328, "HiFi2", "out-of-box", (13, 10), 51.05),
    (1280, 1664, 1664, "HiFi2", "out-of-box", (13, 10), 61.93),
    (1280, 1664, 3328, "HiFi2", "out-of-box", (13, 10), 76.81),
    (1280, 3328, 3328, "HiFi2", "out-of-box", (13, 10), 81.07),
    (2560, 3328, 3328, "HiFi2", "out-of-box", (13, 10), 85.65),
    (2560, 3328, 4992, "HiFi2", "out-of-box", (13, 10), 86.52),
    (2560, 4992, 4992, "HiFi2", "out-of-box", (13, 10), 87.42),
    (3840, 4992, 4992, "HiFi2", "out-of-box", (13, 10), 80.25),
    (3840, 4992, 6656, "HiFi2", "out-of-box", (13, 10), 80.79),
    (3840, 6656, 6656, "HiFi2", "out-of-box", (13, 10), 80.00),
    (5120, 6656, 6656, "HiFi2", "out-of-box", (13, 10), 80.37),
    (640, 704, 704, "HiFi2", "out-of-box", (11, 10), 18.53),
    (640, 1408, 1408, "HiFi2", "out-of-box", (11, 10), 41.77),
    (640, 1408, 2816, "HiFi2", "out-of-box", (11, 10), 51.42),
    (1280, 1408, 1408, "HiFi2", "out-of-box", (11, 10), 61.41),
    (1280, 1408, 2816, "HiFi2", "out-of-box", (11, 10), 75.98),
    (1280, 2816, 2816, "HiFi2", "out-of-box", (11, 10), 80.39),
    (2560, 2816, 2816, "HiFi2", "out-of-box", (11, 10), 85.08),
    (2560, 2816, 4224, "HiFi2", "out-of-box", (11, 10), 86.13),
    (2560, 4224, 4224, "HiFi2", "out-of-box", (11, 10), 87.02),
    (3840, 4224, 4224, "HiFi2", "out-of-box", (11, 10), 80.39),
    (3840, 4224, 5632, "HiFi2", "out-of-box", (11, 10), 80.62),
    (3840, 5632, 5632, "HiFi2", "out-of-box", (11, 10), 80.26),
    (5120, 5632, 5632, "HiFi2", "out-of-box", (11, 10), 80.51),
    (3840, 4992, 6656, "HiFi2", "hand-tuned", (13, 10), 89.61),
    (3840, 6656, 6656, "HiFi2", "hand-tuned", (13, 10), 90.25),
    (4160, 4160, 4160, "HiFi2", "hand-tuned", (13, 10), 88.30),
    (5120, 6656, 6656, "HiFi2", "hand-tuned", (13, 10), 80.36),
    (10240, 13312, 13312, "HiFi2", "hand-tuned", (13, 10), 85.15),
    (20480, 26624, 26624, "HiFi2", "hand-tuned", (13, 10), 88.66),
    (3840, 4992, 6656, "HiFi4", "hand-tuned", (13, 10), 94.53),
    (3840, 6656, 6656, "HiFi4", "hand-tuned", (13, 10), 94.88),
    (4160, 4160, 4160, "HiFi4", "hand-tuned", (13, 10), 93.81),
    (5120, 6656, 6656, "HiFi4", "hand-tuned", (13, 10), 90.35),
    (10240, 13312, 13312, "HiFi4", "hand-tuned", (13, 10), 92.99),
    (20480, 26624, 26624, "HiFi4", "hand-tuned", (13, 10), 94.44),
    (3840, 4224, 5632, "HiFi2", "hand-tuned", (11, 10), 89.47),
    (3840, 5632, 5632, "HiFi2", "hand-tuned", (11, 10), 90.05),
    (4160, 3520, 3520, "HiFi2", "hand-tuned", (11, 10), 87.62),
    (5120, 5632, 5632, "HiFi2", "hand-tuned", (11, 10), 80.51),
    (10240, 11264, 11264, "HiFi2", "hand-tuned", (11, 10), 85.14),
    (20480, 22528, 22528, "HiFi2", "hand-tuned", (11, 10), 88.62),
    (3840, 4224, 5632, "HiFi4", "hand-tuned", (11, 10), 94.46),
    (3840, 5632, 5632, "HiFi4", "hand-tuned", (11, 10), 94.78),
    (4160, 3520, 3520, "HiFi4", "hand-tuned", (11, 10), 93.43),
    (5120, 5632, 5632, "HiFi4", "hand-tuned", (11, 10), 90.37),
    (10240, 11264, 11264, "HiFi4", "hand-tuned", (11, 10), 92.94),
    (20480, 22528, 22528, "HiFi4", "hand-tuned", (11, 10), 94.40),
]


def main():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import calibrate
    sys.argv = [sys.argv[0], "--arch", "blackhole"] + sys.argv[1:]
    calibrate.main()


if __name__ == "__main__":
    main()
