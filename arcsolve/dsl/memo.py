"""Memoising a grid function on the grid's bytes.

The search asks several primitives the same question of one grid (which objects it has,
which object a selector picks, where its period is), so the shared answers are computed
once per grid. Cached arrays are read-only, so that no caller can change them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

import numpy as np

T = TypeVar("T")


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
        return call

    return decorate
