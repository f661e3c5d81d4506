"""Memoising a grid function on the grid's bytes.

The search asks several primitives the same question of one grid (which objects it has,
which object a selector picks, where its period is), so the shared answers are computed
once per grid. Cached arrays are read-only, so that no caller can change them. The answers
are about one task's grids, so the search clears every memo when a task is done
(`clear_memos`): a worker that solves many tasks keeps no other task's grids.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

import numpy as np

T = TypeVar("T")
_MEMOS: list = []  # every memoised function's cache, for clear_memos


def grid_memo(maxsize: int = 1024) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorate `fn(grid, *hashable_args)` to memoise it on the grid's shape, dtype and bytes."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        @lru_cache(maxsize=maxsize)
        def cached(data: bytes, shape: tuple[int, ...], dtype: str, args: tuple) -> T:
            out = fn(np.frombuffer(data, dtype=dtype).reshape(shape), *args)
            if isinstance(out, np.ndarray):
                out.flags.writeable = False
            return out

        @wraps(fn)
        def call(g: np.ndarray, *args) -> T:
            return cached(g.tobytes(), g.shape, g.dtype.str, args)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        _MEMOS.append(cached)
        return call

    return decorate


def clear_memos() -> None:
    """Forget every memoised answer, of every function decorated with `grid_memo`."""
    for cached in _MEMOS:
        cached.cache_clear()
