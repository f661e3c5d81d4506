"""The lattice rule: does a task's output follow from lattice transformations of its input?

It looks for lattice transformations g1..gk (k <= 4; each a dihedral map, an integer up/down
scaling and a translation, padded or tiled) and a cell-wise lookup f with
y = f(g1(x), ..., gk(x)). f is fitted on the train pairs only and must then reproduce every
test output, so a lookup cannot pass by memorising. It is the one exact rule of the
annotator (`arcsolve.priors.review`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve import symmetry
from arcsolve.tasks import Task

OUTSIDE = 10  # the value a transformed grid has where it does not cover the output
DIHEDRAL: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], str | None], ...] = (
    ("id", lambda a: a, None),
    ("rot90", symmetry.rot90, "rotate"),
    ("rot180", symmetry.rot180, "rotate"),
    ("rot270", symmetry.rot270, "rotate"),
    ("flip_lr", symmetry.flip_h, "reflect"),
    ("flip_ud", symmetry.flip_v, "reflect"),
    ("transpose", symmetry.transpose, "reflect"),
    ("antitranspose", symmetry.antitranspose, "reflect"),
)
INPUT_SIDE = -1  # an up-scaling factor equal to the input's side (fractal tilings)
MAX_SHIFT = 1
MAX_CROP = 4
# For k transformations, how many of the best single ones (by information on y) are combined.
POOL = {1: None, 2: 40, 3: 16, 4: 10}
SUPPORT = 4  # for k > 1, train cells needed per lookup entry, so that f cannot just memorise
Pairs = list[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Axis:
    """How one axis of the scaled grid is placed on the output: where it starts, padded or tiled."""

    scale: int = (
        1  # > 0 up-scale by repetition, < -1 down-scale by sampling every |scale|, INPUT_SIDE
    )
    anchor: str = "start"  # offset counted from the output's start or end
    delta: int = 0
    tile: bool = False


@dataclass(frozen=True)
class Lattice:
    """One lattice transformation: a dihedral map, then scaling and placement on each axis."""

    dihedral: int
    rows: Axis
    cols: Axis

    def priors(self, x_shape: tuple[int, int], y_shape: tuple[int, int]) -> set[str]:
        found = {DIHEDRAL[self.dihedral][2]} - {None}
        if self.rows.scale != 1 or self.cols.scale != 1:
            found.add("scale")
        placed = self.rows.delta or self.cols.delta or self.rows.tile or self.cols.tile
        if placed or self.rows.anchor == "end" or self.cols.anchor == "end":
            found.add("translate")
        elif _scaled_shape(self, x_shape) != y_shape:
            found.add("translate")  # a crop or a placement at the origin is still a translation
        return found  # type: ignore[return-value]

    def describe(self) -> str:
        parts = [DIHEDRAL[self.dihedral][0]]
        for name, axis in (("rows", self.rows), ("cols", self.cols)):
            if axis.scale != 1:
                factor = "n" if axis.scale == INPUT_SIDE else str(abs(axis.scale))
                parts.append(
                    f"{name} {'x' if axis.scale > 0 or axis.scale == INPUT_SIDE else '/'}{factor}"
                )
            if axis.tile or axis.delta or axis.anchor == "end":
                parts.append(
                    f"{name} {'tile' if axis.tile else 'shift'} {axis.anchor}{axis.delta:+d}"
                )
        return " ".join(parts)


def _scaled(lattice: Lattice, x: np.ndarray) -> np.ndarray:
    z = DIHEDRAL[lattice.dihedral][1](x)
    for dim, axis in ((0, lattice.rows), (1, lattice.cols)):
        factor = z.shape[dim] if axis.scale == INPUT_SIDE else axis.scale
        if factor > 1:
            z = np.repeat(z, factor, axis=dim)
        elif factor < -1:
            z = z[::-factor] if dim == 0 else z[:, ::-factor]
    return z


def _scaled_shape(lattice: Lattice, x_shape: tuple[int, int]) -> tuple[int, int]:
    return _scaled(lattice, np.zeros(x_shape, dtype=np.int64)).shape  # type: ignore[return-value]


def _source(axis: Axis, size: int, source_size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each output index along an axis, the source index and whether it is inside."""
    offset = axis.delta if axis.anchor == "start" else size - source_size + axis.delta
    index = np.arange(size) - offset
    if axis.tile:
        return index % source_size, np.ones(size, dtype=bool)
    inside = (index >= 0) & (index < source_size)
    return np.clip(index, 0, source_size - 1), inside


def apply(lattice: Lattice, x: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The transformed input read on an output of `shape`, OUTSIDE where it does not reach."""
    z = _scaled(lattice, x)
    rows, row_in = _source(lattice.rows, shape[0], z.shape[0])
    cols, col_in = _source(lattice.cols, shape[1], z.shape[1])
    return np.where(row_in[:, None] & col_in[None, :], z[np.ix_(rows, cols)], OUTSIDE)


def _axis_options(dim: int, pairs: Pairs, dihedral: int) -> list[Axis]:
    """Scalings and placements of one axis worth trying, judged from the first pair's shapes."""
    x, y = pairs[0]
    side = DIHEDRAL[dihedral][1](x).shape[dim]
    size = y.shape[dim]
    scales = {1}
    if size % side == 0 and 1 < size // side <= 5:
        scales.add(size // side)
    if side % size == 0 and 1 < side // size <= 5:
        scales.add(-(side // size))
    if size == side * side and side > 1:
        scales.add(INPUT_SIDE)
    options = []
    for scale in sorted(scales):
        scaled = (
            side * side if scale == INPUT_SIDE else side * scale if scale > 0 else side // -scale
        )
        if scaled == size and scale != 1:
            options.append(Axis(scale))
        elif scaled == size:
            shifts = range(-MAX_SHIFT, MAX_SHIFT + 1)
            options += [Axis(scale, "start", d) for d in shifts]
            options += [Axis(scale, "start", d, True) for d in shifts if d]
        elif scaled < size:
            for anchor in ("start", "end"):
                options += [Axis(scale, anchor, 0), Axis(scale, anchor, 0, True)]
        else:
            options += [Axis(scale, "start", -d) for d in range(MAX_CROP + 1)]
            options += [Axis(scale, "end", d) for d in range(1, MAX_CROP + 1)]
    return options


def candidates(pairs: Pairs) -> list[Lattice]:
    return [
        Lattice(d, rows, cols)
        for d in range(len(DIHEDRAL))
        for rows in _axis_options(0, pairs, d)
        for cols in _axis_options(1, pairs, d)
    ]


def _features(lattice: Lattice, pairs: Pairs) -> np.ndarray:
    """The transformed inputs read on every output cell of the pairs, concatenated."""
    return np.concatenate([apply(lattice, x, y.shape).ravel() for x, y in pairs])


def _combine(features: Sequence[np.ndarray]) -> np.ndarray:
    """Each cell's feature tuple (values of g1(x)..gk(x)) as one integer key."""
    key = np.zeros_like(features[0])
    for feature in features:
        key = key * (OUTSIDE + 1) + feature
    return key


def _lookup(keys: np.ndarray, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The cell-wise function seen in the data as sorted (keys, colours); None if not a function."""
    codes = np.unique(keys * 10 + outputs)
    if len(np.unique(codes // 10)) != len(codes):
        return None
    return codes // 10, codes % 10


def _information(features: np.ndarray, outputs: np.ndarray) -> float:
    """Mutual information (bits) between a transformed input's cells and the output's cells."""
    joint = np.unique(features * 10 + outputs, return_counts=True)
    p_joint = joint[1] / len(outputs)
    p_feature = np.bincount(features, minlength=OUTSIDE + 1) / len(outputs)
    p_output = np.bincount(outputs, minlength=10) / len(outputs)
    f, y = joint[0] // 10, joint[0] % 10
    return float(np.sum(p_joint * np.log2(p_joint / (p_feature[f] * p_output[y]))))


def _abstract(
    key: int, output: int | None, k: int, literal: frozenset[int]
) -> tuple[tuple[int, ...], int | None]:
    """A key with its colours (other than `literal` ones) renamed by first appearance."""
    values = []
    for _ in range(k):
        key, value = divmod(key, OUTSIDE + 1)
        values.append(value)
    names: dict[int, int] = {}
    renamed = tuple(v if v in literal else -1 - names.setdefault(v, len(names)) for v in values)
    if output is not None and output in names:
        output = -1 - names[output]
    return renamed, output


def _predicts(
    table: tuple[np.ndarray, np.ndarray],
    keys: np.ndarray,
    outputs: np.ndarray,
    k: int,
    literal: frozenset[int],
) -> bool:
    """Whether the train lookup gives the test cells; unseen keys are matched up to colour names."""
    known, colours = table
    index = np.minimum(np.searchsorted(known, keys), len(known) - 1)
    seen = known[index] == keys
    if (colours[index][seen] != outputs[seen]).any():
        return False
    if seen.all():
        return True
    abstract: dict[tuple[int, ...], int | None] = {}
    for key, colour in zip(known.tolist(), colours.tolist(), strict=True):
        name, out = _abstract(key, colour, k, literal)
        abstract[name] = out if abstract.get(name, out) == out else None
    for key, expected in set(zip(keys[~seen].tolist(), outputs[~seen].tolist(), strict=True)):
        name, want = _abstract(key, expected, k, literal)
        if abstract.get(name) is None or abstract[name] != want:
            return False
    return True


@dataclass(frozen=True)
class Explanation:
    """Lattice transformations whose train-fitted cell-wise lookup reproduces the test outputs."""

    lattices: tuple[Lattice, ...]
    priors: frozenset[str]

    def describe(self) -> str:
        return "y = f(" + ", ".join(g.describe() for g in self.lattices) + ")"


def shapes_predictable(task: Task) -> bool:
    """Output shapes follow from input shapes by one rule (constant, or a fixed ratio per axis)."""
    pairs = [
        (p.input.shape, p.output.shape) for p in [*task.train, *task.test] if p.output is not None
    ]
    for dim in (0, 1):
        for source in (0, 1):
            constant = len({y[dim] for _, y in pairs}) == 1
            ratio = len({y[dim] * 1.0 / x[source] for x, y in pairs}) == 1
            square = all(y[dim] == x[source] ** 2 for x, y in pairs)
            if constant or ratio or square:
                break
        else:
            return False
    return True


def explain(task: Task, max_k: int = 4) -> Explanation | None:
    """The simplest lattice explanation of a task (fewest transformations, then fewest priors)."""
    if not task.has_solutions or not shapes_predictable(task):
        return None
    train = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    test = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.test if p.output is not None]
    shapes = (train[0][0].shape, train[0][1].shape)
    train_y = np.concatenate([y.ravel() for _, y in train])
    test_y = np.concatenate([y.ravel() for _, y in test])
    # Colours in every train input (markers, background) keep their names when unseen keys
    # are matched up to colour names; the others (a picture's own colours) may change.
    literal = frozenset({0, OUTSIDE}) | frozenset.intersection(
        *(frozenset(np.unique(x).tolist()) for x, _ in train)
    )
    seen: dict[bytes, tuple[int, Lattice, np.ndarray, np.ndarray]] = {}
    for lattice in candidates(train):
        try:
            features = _features(lattice, train), _features(lattice, test)
        except (ValueError, IndexError, ZeroDivisionError):
            continue  # the transformation does not fit some pair's shapes
        if (features[0] == OUTSIDE).all():
            continue
        cost = len(lattice.priors(*shapes))
        digest = features[0].tobytes() + features[1].tobytes()
        if digest not in seen or cost < seen[digest][0]:
            seen[digest] = (cost, lattice, *features)
    scored = sorted(seen.values(), key=lambda item: (-_information(item[2], train_y), item[0]))
    found: list[Explanation] = []
    for k in range(1, max_k + 1):
        for group in itertools.combinations(scored[: POOL[k]], k):
            table = _lookup(_combine([item[2] for item in group]), train_y)
            if table is None or (k > 1 and len(table[0]) * SUPPORT > len(train_y)):
                continue
            if _predicts(table, _combine([item[3] for item in group]), test_y, k, literal):
                lattices = tuple(item[1] for item in group)
                priors = frozenset().union(*(g.priors(*shapes) for g in lattices))
                found.append(Explanation(lattices, priors))
        if found:
            return min(found, key=lambda e: (len(e.priors), sorted(e.priors)))
    return None


def is_neighbourhood(explanation: Explanation) -> bool:
    """Several small shifts of the unscaled input: a local rule (outlines, lines), not geometry."""
    plain = all(g.dihedral == 0 and g.rows.scale == g.cols.scale == 1 for g in explanation.lattices)
    return plain and len(explanation.lattices) > 1 and "translate" in explanation.priors


def is_overlay(explanation: Explanation, task: Task) -> bool:
    """Two or more crops of different parts of a bigger input combined cell-wise: logic."""
    x, y = task.train[0].input, task.train[0].output
    return len(explanation.lattices) > 1 and y.shape[0] * y.shape[1] * 2 <= x.shape[0] * x.shape[1]
