"""Output-size rules: the output lattice of a test input, inferred from the train pairs.

LatFormer's first layer maps the input lattice onto an output lattice of a known size;
this module decides that size. A rule must explain every train pair; the first rule in
the order below is used: same, transposed, an integer multiple or fraction (possibly
transposed), the input scaled by its own size (h·h × w·w, the fractal tasks), a fixed
size, then a rule per axis, output rows from input rows or from input columns, each axis
a fraction (3/2 × 1/2), a fixed side, the input's side (or a multiple or fraction of it)
plus a constant (a padding), or a padding before a scaling ((n + 1) / 2). A ratio comes
before a fixed size because when every train input has one size both fit, and a test
input of another size is then far more often scaled; a fraction comes after it, since any
one size is some fraction of another.

Each rule has a cost, the bits that write it: its factors, margins and fixed sides in
Elias's gamma code, so small numbers cost less; a columns' rule of the rows' form costs one
bit ("the same again"), so where the train pairs leave one axis open, it takes the other
axis's rule when that fits (a padding of every side). The rules per axis are taken cheapest
first. Where every train input has the same side on some axis, several rules fit and can
disagree on a test input of another side (7 rows from 6 are n + 1, a fixed 7 or 7/6 of
them); `alternative_sizes` gives the others, cheapest first, so that a second attempt can
be made at the next likeliest size. Where every train input is square, a rule and the same
rule read with the input's axes swapped fit alike; `turned_rule` gives the latter, for a
model whose action swaps the axes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np
from scipy import ndimage

from arcsolve.tasks import MAX_SIDE, Grid

Shape = tuple[int, int]

MOST_UP = 10  # the largest factor of an up-scaling or tiling on one axis
MOST_DOWN = 6  # the largest factor of a down-scaling or sampling on one axis
MOST_PADDING = 6  # the widest margin, in cells, added before a scaling on one axis
TRANSPOSE_COST = 1  # bits that reading the input's rows as columns adds to a rule
SAME_RULE_COST = 1  # bits of the columns' rule where it is the rows' (a padding of every side)


def _bits(k: int) -> int:
    """The bits that write the whole number k ≥ 1 (Elias's gamma code: small numbers cost less)."""
    return 2 * (k.bit_length() - 1) + 1


def _side_cost(p: int, q: int, c: int = 0) -> int:
    """The bits of the side p·n/q + c: its factors, then a margin with its sign."""
    return _bits(p) + _bits(q) + (1 + _bits(abs(c)) if c else 0)


def _fixed_cost(side: int) -> int:
    """The bits of a fixed side: two flags (no factors, no input), then the side."""
    return 2 + _bits(side)


@dataclass(frozen=True)
class SizeRule:
    """An output size from an input's: called with a shape, or with the grid itself (an
    array or a `Grid`), which a rule that reads the grid's content (`count`) needs."""

    name: str
    apply: Callable[..., Shape]  # shape -> shape; (shape, count) -> shape where `count` is set
    cost: int = 0  # the bits it takes to write the rule: the axis rules and `alternative_sizes` rank by it
    count: Callable[[np.ndarray], int] | None = None  # what a content rule counts in the grid

    def __call__(self, grid: Shape | np.ndarray | Grid) -> Shape:
        if self.count is None:
            return self.apply(grid if isinstance(grid, tuple) else tuple(grid.shape))
        if isinstance(grid, tuple):
            raise TypeError(f"the size rule '{self.name}' reads the grid, not only its shape")
        cells = np.asarray(grid)
        return self.apply(cells.shape, self.count(cells))


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
    return next(size_rules(pairs), None)


def size_rules(pairs: list[tuple[Shape, Shape]]) -> Iterator[SizeRule]:
    """Every rule that maps each train input shape to its output shape, in the module
    docstring's order: the whole-grid rules, then the rules per axis, cheapest first. Rules
    after the first matter where the train pairs leave the size open: every train input has
    the same side on some axis, so a fixed side, a fraction and a padding all fit there, and
    a test input of another side tells them apart."""
    if all(i == o for i, o in pairs):
        yield SizeRule("same", lambda s: s, 2 * _side_cost(1, 1))
    if all((i[1], i[0]) == o for i, o in pairs):
        yield SizeRule("transpose", lambda s: (s[1], s[0]), 2 * _side_cost(1, 1) + TRANSPOSE_COST)
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

        cost = _side_cost(a, 1) + _side_cost(b, 1) + TRANSPOSE_COST * transpose
        yield SizeRule(f"{t}{'divided' if down else 'multiplied'} by {a}x{b}", rule, cost)
    if all((i[0] * i[0], i[1] * i[1]) == o for i, o in pairs):
        own = 2 * (_side_cost(1, 1) + 1)  # each side times itself: one more flag per side
        yield SizeRule("multiplied by its own size", lambda s: (s[0] * s[0], s[1] * s[1]), own)
    if len(outs) == 1:
        fixed = next(iter(outs))
        cost = _fixed_cost(fixed[0]) + _fixed_cost(fixed[1])
        yield SizeRule(f"fixed {fixed[0]}x{fixed[1]}", lambda s: fixed, cost)
    per_axis = []
    for transpose in (False, True):  # output rows from input rows, or from input columns
        rows = list(_axis_rules([(i[transpose], o[0]) for i, o in pairs]))
        cols = list(_axis_rules([(i[1 - transpose], o[1]) for i, o in pairs]))
        t = "transposed, " if transpose else ""
        for row, row_name, row_cost in rows:
            for col, col_name, col_cost in cols:
                # the columns' rule written as "the rows' again" where it is the same form
                col_cost = min(col_cost, SAME_RULE_COST) if col_name == row_name else col_cost
                rule = SizeRule(
                    f"{t}rows {row_name}, columns {col_name}",
                    lambda s, row=row, col=col, t=transpose: (row(s[t]), col(s[1 - t])),
                    row_cost + col_cost + TRANSPOSE_COST * transpose,
                )
                per_axis.append(rule)
    yield from sorted(per_axis, key=lambda r: r.cost)


def _axis_rules(sides: list[tuple[int, int]]) -> Iterator[tuple[Callable[[int], int], str, int]]:
    """One axis's side from the input's, every form that each (in, out) pair of the axis
    obeys, in this order (which breaks ties of cost): a fraction (`_axis_fraction`), one
    fixed side, the input's plus a constant (a padding, or a crop of fixed margins), a
    multiple or a fraction 1/q of it plus a constant (tiled or sampled, then padded), a
    fraction p/q of it (q of 2 or 3) plus a constant, then a padding before the scaling:
    (p·n + c) / q. (side, name, cost) each."""
    fraction = _axis_fraction(sides)
    if fraction is not None:
        p, q = fraction
        yield (lambda n, p=p, q=q: n * p // q), f"×{p}/{q}", _side_cost(p, q)
    outs = {o for _, o in sides}
    if len(outs) == 1:
        fixed = next(iter(outs))
        yield (lambda n, fixed=fixed: fixed), f"fixed {fixed}", _fixed_cost(fixed)
    # a multiple k (tiled), a fraction 1/q (sampled) or p/q (q of 2 or 3: tripled, then every
    # second cell) of the input's side, then padded
    for p, q in [(k, 1) for k in range(1, MOST_UP + 1)] + [(1, q) for q in range(2, MOST_DOWN + 1)] + [
        (p, q) for q in (2, 3) for p in range(2, MOST_UP + 1) if math.gcd(p, q) == 1
    ]:
        if any(i * p % q for i, _ in sides):
            continue
        offsets = {o - i * p // q for i, o in sides}
        if len(offsets) == 1:
            c = offsets.pop()
            scaled = f"{'' if p == 1 else p}n" + ("" if q == 1 else f"/{q}")
            yield (lambda n, p=p, q=q, c=c: n * p // q + c), f"{scaled}{c:+d}", _side_cost(p, q, c)
    # padded, then scaled: the side (p·n + c) / q, exact on every pair (a margin then every
    # second cell, or a margin then tripled and sampled)
    for q in range(2, MOST_DOWN + 1):
        for p in range(1, MOST_UP + 1):
            if math.gcd(p, q) != 1:
                continue
            offsets = {o * q - i * p for i, o in sides}
            if len(offsets) == 1 and (c := offsets.pop()) % q and abs(c) <= MOST_PADDING * q:
                name = f"({'' if p == 1 else p}n{c:+d})/{q}"
                yield (lambda n, p=p, q=q, c=c: (n * p + c) // q), name, _side_cost(p, q, c) + 1


def turned_rule(rule: SizeRule, pairs: list[tuple[Shape, Shape]], tests: list[Shape]) -> SizeRule | None:
    """`rule` read with the input's axes swapped, where the train pairs cannot tell the two
    apart (every train input is square) and some test input can (it is not): the size of an
    action that swaps the axes (a quarter turn, a transpose). None elsewhere."""
    if rule.count is not None:  # a count of the content is the same read either way
        return None
    if any(h != w for (h, w), _ in pairs) or all(rule((w, h)) == rule((h, w)) for h, w in tests):
        return None
    name = "transposed" if rule.name == "same" else f"transposed, {rule.name}"
    return SizeRule(name, lambda s: rule((s[1], s[0])), rule.cost + TRANSPOSE_COST)


def alternative_sizes(
    pairs: list[tuple[Shape, Shape]],
    tests: list[Shape],
    most: int = 1,
    limit: int = 400,
    chosen: SizeRule | None = None,
) -> list[SizeRule]:
    """Rules other than the `chosen` one (by default the first, `infer_size_rule`) that fit
    every train pair and give the test inputs other output shapes, the cheapest first, at
    most `most` of them, one per set of test shapes; each gives sides from 1 to MAX_SIDE.
    Empty when the train pairs pin the test size down. `limit` bounds the rules looked at."""
    rules = list(islice(size_rules(pairs), limit))
    if not rules:
        return []
    chosen = chosen or rules[0]
    seen = {tuple(chosen(t) for t in tests)}
    found = []
    for rule in sorted(rules, key=lambda r: r.cost):
        shapes = tuple(rule(t) for t in tests)
        if shapes not in seen and all(1 <= side <= MAX_SIDE for shape in shapes for side in shape):
            seen.add(shapes)
            found.append(rule)
    return found[:most]


def _axis_fraction(
    sides: list[tuple[int, int]], most: int = MOST_DOWN, most_up: int = MOST_UP
) -> tuple[int, int] | None:
    """The fraction p/q (p at most `most_up`, q at most `most`, the smallest q first) with
    out·q = in·p on every (in, out) pair of one axis: up-scalings and down-scalings of
    different amounts per axis, or composed (every second cell, then tripled: 3/2; tiled
    three times, then tripled: 9)."""
    for q in range(1, most + 1):
        for p in range(1, most_up + 1):
            if math.gcd(p, q) == 1 and all(o * q == i * p for i, o in sides):
                return p, q
    return None


# What a content rule counts in a grid, simplest first; 0 is taken for the background.
COUNTS: dict[str, Callable[[np.ndarray], int]] = {
    "colours": lambda g: len(np.unique(g[g != 0])),
    "cells": lambda g: int(np.count_nonzero(g)),
    "objects": lambda g: int(ndimage.label(g != 0)[1]),
}


def repeat_side(grid: np.ndarray, axis: int) -> int:
    """The side of the grid's repeating part along `axis`: the smallest p dividing its side
    such that it is side / p copies of its first p lines (the side itself where it is no
    such copies)."""
    n = grid.shape[axis]
    lines = np.moveaxis(grid, axis, 0)
    for p in range(1, n):
        if n % p == 0 and all(np.array_equal(lines[:p], lines[k : k + p]) for k in range(p, n, p)):
            return p
    return n


def _one_repeat(shape: Shape, grid: np.ndarray) -> Shape:
    return repeat_side(grid, 0), repeat_side(grid, 1)


def content_size_rule(pairs: list[tuple[np.ndarray, np.ndarray]]) -> SizeRule | None:
    """Where no rule of the shapes alone fits, one that counts something in each input
    (`COUNTS`: its colours, cells or objects, 0 the background) and sets a side by that count
    q: the input's side times q, q itself, the side unchanged or a side every train output
    has (at least one side reading q); an axis may take its side from the input's other axis
    (a row of n cells drawn into n·q rows). Each grid is scaled by its own count: three
    colours triple it, four quadruple it. Or, for inputs made of copies of one part, the
    part's size on each axis (`repeat_side`): a grid doubled along either axis, halved
    along the axis it was doubled on. The cheapest that fits every train pair, or None."""
    forms = [  # (name, side from (this axis's side, the other axis's side, q), cost)
        ("n", lambda n, m, q: n, 1),
        ("n·q", lambda n, m, q: n * q, 2),
        ("q", lambda n, m, q: q, 2),
        ("m·q", lambda n, m, q: m * q, 3),
    ]
    rows, cols = list(forms), list(forms)
    for axis, axis_forms in ((0, rows), (1, cols)):  # a side every train output shares
        sides = {y.shape[axis] for _, y in pairs}
        if len(sides) == 1:
            side = sides.pop()
            axis_forms.append((f"fixed {side}", lambda n, m, q, side=side: side, _fixed_cost(side)))
    found = []
    for what, count in COUNTS.items():
        counts = [count(x) for x, _ in pairs]
        if min(counts) < 1:
            continue
        for (rname, row, rcost), (cname, col, ccost) in itertools.product(rows, cols):
            if "q" not in rname + cname:
                continue
            if all(
                (row(x.shape[0], x.shape[1], q), col(x.shape[1], x.shape[0], q)) == y.shape
                for (x, y), q in zip(pairs, counts, strict=True)
            ):
                cost = rcost + (min(ccost, SAME_RULE_COST) if cname == rname else ccost)
                name = (
                    f"multiplied by its number of {what}"
                    if rname == cname == "n·q"
                    else f"rows {rname}, columns {cname}, q its number of {what}"
                )

                def apply(shape: Shape, q: int, row=row, col=col) -> Shape:
                    return row(shape[0], shape[1], q), col(shape[1], shape[0], q)

                found.append(SizeRule(name, apply, cost, count))
    if all(_one_repeat(x.shape, x) == y.shape for x, y in pairs):  # the grids' copies undone
        found.append(SizeRule("one repeat of the input's copies", _one_repeat, 2, lambda g: g))
    return min(found, key=lambda r: r.cost, default=None)
