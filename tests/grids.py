"""Small helpers shared by the primitive tests: a grid from rows, and an exact comparison."""

import numpy as np


def g(rows) -> np.ndarray:
    """A grid of int8 colours, as the search holds them."""
    return np.array(rows, dtype=np.int8)


def eq(actual, expected) -> None:
    """The primitive gave a grid, equal to the expected rows."""
    assert actual is not None
    assert np.array_equal(actual, np.array(expected)), f"\n{actual}\n!=\n{np.array(expected)}"
