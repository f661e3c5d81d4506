"""Output-size rules: the output lattice of a test input, inferred from the train pairs.

LatFormer's first layer maps the input lattice onto an output lattice of a known size;
this module decides that size. A rule must explain every train pair; the first rule in
the order below is used: same, transposed, an integer multiple or fraction (possibly
transposed), the input scaled by its own size (h·h × w·w, the fractal tasks), a fixed
size, then a rule per axis, output rows from input rows or from input columns: a fraction
(3/2 × 1/2), a fixed side, or the input's side (or a multiple or fraction of it) plus a
constant (a padding). A ratio comes before a fixed size because when
every train input has one size both fit, and a test input of another size is then far more
often scaled; a fraction comes after it, since any one size is some fraction of another."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

Shape = tuple[int, int]


@dataclass(frozen=True)
class SizeRule:
    name: str
    apply: Callable[[Shape], Shape]

    def __call__(self, shape: Shape) -> Shape:
        return self.apply(shape)


def common_factor(pairs: list[tuple[Shape, Shape]], transpose: bool, down: bool) -> tuple[int, int] | None:
    """The integer factor (a, b), one for every pair, with out = in·(a, b), or in / (a, b)
    when `down`; with `transpose` the inputs are read transposed. None when there is none."""
    factors = set()
    for (h, w), (H, W) in pairs:
        if transpose:
            h, w = w, h
        big, small = ((h, w), (H, W)) if down else ((H, W), (h, w))
        if big[0] % small[0] or big[1] % small[1]:
            return None
        factors.add((big[0] // small[0], big[1] // small[1]))
    return factors.pop() if len(factors) == 1 else None


def _ratio(pairs: list[tuple[Shape, Shape]], transpose: bool) -> tuple[int, int, bool] | None:
    """A common integer factor (a, b) with out = in·(a, b) (or in / (a, b) when `down`)."""
    for down in (False, True):
        found = common_factor(pairs, transpose, down)
        if found is not None:
            return (*found, down)
    return None


def infer_size_rule(pairs: list[tuple[Shape, Shape]]) -> SizeRule | None:
    """The simplest rule mapping every train input shape to its output shape, or None."""
    if all(i == o for i, o in pairs):
        return SizeRule("same", lambda s: s)
    if all((i[1], i[0]) == o for i, o in pairs):
        return SizeRule("transpose", lambda s: (s[1], s[0]))
    outs = {o for _, o in pairs}
    for transpose in (False, True):
        found = _ratio(pairs, transpose)
        if found is None:
            continue
        a, b, down = found
        t = "transposed " if transpose else ""

        def rule(s: Shape, a=a, b=b, down=down, transpose=transpose) -> Shape:
            h, w = (s[1], s[0]) if transpose else s
            return (h // a, w // b) if down else (h * a, w * b)

        return SizeRule(f"{t}{'divided' if down else 'multiplied'} by {a}x{b}", rule)
    if all((i[0] * i[0], i[1] * i[1]) == o for i, o in pairs):
        return SizeRule("multiplied by its own size", lambda s: (s[0] * s[0], s[1] * s[1]))
    if len(outs) == 1:
        fixed = outs.pop()
        return SizeRule(f"fixed {fixed[0]}x{fixed[1]}", lambda s: fixed)
    for transpose in (False, True):  # output rows from input rows, or from input columns
        rules = [_axis_rule([(i[axis ^ transpose], o[axis]) for i, o in pairs]) for axis in (0, 1)]
        if None not in rules:
            (rows, row_name), (cols, col_name) = rules
            t = "transposed, " if transpose else ""
            return SizeRule(
                f"{t}rows {row_name}, columns {col_name}",
                lambda s, rows=rows, cols=cols, t=transpose: (rows(s[t]), cols(s[1 - t])),
            )
    return None


def _axis_rule(sides: list[tuple[int, int]]) -> tuple[Callable[[int], int], str] | None:
    """One axis's side from the input's, the first that every (in, out) pair of the axis
    obeys: a fraction (`_axis_fraction`), one fixed side, the input's plus a constant (a
    padding, or a crop of fixed margins), or a multiple or a fraction 1/q of it plus a
    constant (tiled or sampled, then padded), or a fraction p/q of it (q of 2 or 3) plus a
    constant."""
    fraction = _axis_fraction(sides)
    if fraction is not None:
        p, q = fraction
        return (lambda n: n * p // q), f"×{p}/{q}"
    outs = {o for _, o in sides}
    if len(outs) == 1:
        fixed = outs.pop()
        return (lambda n: fixed), f"fixed {fixed}"
    # a multiple k (tiled), a fraction 1/q (sampled) or p/q (q of 2 or 3: tripled, then every
    # second cell) of the input's side, then padded: the first that every side obeys
    for p, q in [(k, 1) for k in range(1, 7)] + [(1, q) for q in range(2, 7)] + [
        (p, q) for q in (2, 3) for p in range(2, 7) if math.gcd(p, q) == 1
    ]:
        if any(i * p % q for i, _ in sides):
            continue
        offsets = {o - i * p // q for i, o in sides}
        if len(offsets) == 1:
            c = offsets.pop()
            scaled = f"{'' if p == 1 else p}n" + ("" if q == 1 else f"/{q}")
            return (lambda n, p=p, q=q, c=c: n * p // q + c), f"{scaled}{c:+d}"
    return None


def _axis_fraction(sides: list[tuple[int, int]], most: int = 6, most_up: int = 10) -> tuple[int, int] | None:
    """The fraction p/q (p at most `most_up`, q at most `most`, the smallest q first) with
    out·q = in·p on every (in, out) pair of one axis: up-scalings and down-scalings of
    different amounts per axis, or composed (every second cell, then tripled: 3/2; tiled
    three times, then tripled: 9)."""
    for q in range(1, most + 1):
        for p in range(1, most_up + 1):
            if math.gcd(p, q) == 1 and all(o * q == i * p for i, o in sides):
                return p, q
    return None
