#!/usr/bin/env bash
# The paper-scale synthetic studies (Figure 5 and Table 4; Appendix B.1 and B.4) on one GPU, one
# resumable piece per call.
# Usage (from the repository root, arcsolve importable): bash benchmarks/synthetic_gpu.sh [RESULTS_DIR]
# Each call runs one piece of at most MINUTES minutes (default 8) with WORKERS fit processes
# sharing the GPU (default 4), writes the summary so far and returns. Call it again until both
# studies say "complete": a rerun resumes from RESULTS_DIR/synthetic.jsonl and noise.jsonl and
# never repeats a finished fit; RESULTS_DIR/*.pieces.jsonl log how long each piece took.
# Where $OUT is set (a folder that a remote machine sends back), the results folder's files are
# also copied there at the end; copy them back into RESULTS_DIR before the next call.
set -uo pipefail
results=${1:-benchmarks/results/synthetic_paper}
minutes=${MINUTES:-8}
workers=${WORKERS:-4}
mkdir -p "$results"
start=$SECONDS
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
export PYTHONUNBUFFERED=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
python3 -m arcsolve bench synthetic --paper --noise --device cuda --workers "$workers" \
    --max-minutes "$minutes" --out "$results" 2>&1 | tee -a "$results/synthetic_gpu.log"
status=${PIPESTATUS[0]}
echo "== piece: $((SECONDS - start)) s, exit $status" | tee -a "$results/synthetic_gpu.log"
if [[ -n "${OUT:-}" ]]; then
    cp "$results"/*.json "$results"/*.jsonl "$results"/*.png "$results/synthetic_gpu.log" "$OUT"/ 2>/dev/null
fi
exit "$status"
