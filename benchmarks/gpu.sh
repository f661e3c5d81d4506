#!/usr/bin/env bash
# Everything the project measures on a GPU, in one go:
#   1. the CUDA tests (tests/latformer/test_devices.py; CI has no GPU and skips them);
#   2. the geometric subsets fitted by LatFormer, batched, end to end (target: <= 3 minutes on an H100);
#   3. one task at a time against BATCH at a time on the 35 quick geometric tasks (target: >= 10x tasks/min);
#   4. single tasks (`bench solve`: median seconds per task).
# Usage: bash benchmarks/gpu.sh [OUT_DIR] [BATCH] [JOBS]   (from the repository root, arcsolve importable);
# the geometric run uses JOBS worker processes (default 4; they share the GPU, each queueing its
# own batches' steps on its own CPU core) of BATCH tasks (default 16);
# STEPS picks steps (default "tests geometric speed solve"); TESTS_S, GEOMETRIC_S, SPEED_S and
# SOLVE_S cap each step's seconds (90, 150, 180 and 90: 510 s in all, so that the whole script
# runs as one command of at most 10 minutes; a geometric run cut short resumes from its report).
set -uo pipefail
out=${1:-benchmarks/results/gpu}
batch=${2:-16}
jobs=${3:-4}
mkdir -p "$out"
exec > >(tee "$out/gpu.log") 2>&1
arcsolve=(python3 -m arcsolve)
status=0
step() {  # step NAME SECONDS COMMAND...: run, time, and keep going after a failure
    local name=$1 limit=$2 start=$SECONDS
    shift 2
    [[ " ${STEPS:-tests geometric speed solve} " == *" $name "* ]] || return 0
    echo "== $name"
    timeout "$limit" "$@" || { echo "!! $name failed or ran past ${limit}s (exit $?)"; status=1; }
    echo "== $name: $((SECONDS - start)) s"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"

step tests "${TESTS_S:-90}" python3 -m pytest -q -p no:cacheprovider tests/latformer/test_devices.py
step geometric "${GEOMETRIC_S:-150}" "${arcsolve[@]}" eval --subset geometric --model latformer --device cuda --jobs "$jobs" --batch "$batch" \
    --fit-seconds 60 --report "$out/geometric"
QUICK=(tasks/ 0c786b71 2dee498d 3af2c5a8 3c9b0459 4c4377d9 5614dbcf 59341089 60c09cac 6150a2bd 62c24649 67a3c6ac
       67e8384a 68b16354 6d0aefbc 6fa7a44f 74dd1130 7b7f7511 833dafe3 8be77c9e 8d5021e8 9172f3a0 a416b8f3 ad7e01d0
       bc4146bd be03b35f c48954c1 c9e6f938 ccd554ac d10ecb37 eb281b96 ed36ccf7)
step speed "${SPEED_S:-180}" "${arcsolve[@]}" bench speed "${QUICK[@]}" --jobs 1 --batch "$batch" --device cuda --out "$out/speed_gpu_35.json"
step solve "${SOLVE_S:-90}" "${arcsolve[@]}" bench solve --device cuda --out "$out/solve_gpu.json"
exit $status
