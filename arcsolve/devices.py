"""Where computations run: the torch device a solver uses and the GPUs a run may spread over.

Choosing the device is explicit and happens here alone: nothing is placed on a GPU at import
time, so every path also runs on a CPU. torch is imported on first use, so that the commands
that never fit a model (show, validate, score) start without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcsolve.errors import ArcsolveError

if TYPE_CHECKING:
    import torch

GPU_BATCH = 16  # eval/export's --batch on a GPU: one batched step costs about what one task's step costs


def resolve_device(name: str) -> torch.device:
    """The torch device for `--device`: 'auto' is the GPU when torch sees one, else the CPU."""
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ArcsolveError("--device cuda was asked for, but torch sees no CUDA device")
    return torch.device(name)


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """`tensor` (on the CPU) on `device`. To a GPU it goes from pinned memory without waiting:
    a plain copy from pageable memory would wait for all the GPU's queued work, every step."""
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def visible_gpus() -> int:
    """How many CUDA devices torch sees here (0 without CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def usable_gpus(device: str) -> int:
    """The GPUs a run on `device` may use: none for --device cpu, else every visible one."""
    return 0 if device == "cpu" else visible_gpus()


def default_batch(batch: int | None, device: str) -> int:
    """--batch, or by default GPU_BATCH on a GPU and 1 on a CPU."""
    if batch is not None:
        return batch
    return GPU_BATCH if usable_gpus(device) else 1


def default_jobs(jobs: int | None, device: str) -> int:
    """--jobs, or by default one worker per visible GPU (1 on CPU)."""
    if jobs is not None:
        return jobs
    return max(1, usable_gpus(device))
