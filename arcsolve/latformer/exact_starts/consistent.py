"""The search for exact starting sets (`consistent_sets`): sets of one to four candidate
actions under which every train output is a function of the heads' readings, cell by cell;
one head's wider actions, one action per tile, and two actions in a row where no one head
explains the pairs; pooling heads whose cell rule counts (`counting_sets`) and heads whose
rule is an overlay (`overlay_sets`). Sets that read exactly alike are kept once."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from arcsolve.latformer.count_rules import MAX_COUNTED, block_counts, count_rule, with_test_backgrounds
from arcsolve.latformer.exact_starts.action_sets import (
    ActionSet,
    copies,
    edits_recur,
    is_function,
    longer_than_the_data,
    support,
    train_cells,
)
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.candidates import (
    anchored_axes,
    candidate_actions,
    centred_crop,
    output_periods,
    output_symmetries,
    stretched_reads,
)
from arcsolve.latformer.exact_starts.chains import chain_sets
from arcsolve.latformer.exact_starts.colours import background_colour, set_readings
from arcsolve.latformer.exact_starts.composed import composed_sets
from arcsolve.latformer.exact_starts.paddings import padding_sets
from arcsolve.latformer.exact_starts.panels import panel_sets
from arcsolve.latformer.exact_starts.per_tile import per_tile_sets
from arcsolve.latformer.exact_starts.periodic import periodic_sets
from arcsolve.latformer.exact_starts.readings import MAX_POOLED, cell_keys, reading
from arcsolve.latformer.exact_starts.single_heads import single_actions
from arcsolve.latformer.exact_starts.staged import staged_sets
from arcsolve.latformer.experts import SCALE_FACTORS
from arcsolve.latformer.overlay_rules import MAX_OVERLAID, overlay_rules

IDENTITY = ExactAction()
# a cell's eight neighbours, each read by a shift of one cell with fill (same-shape pairs)
NEIGHBOURS = tuple(ExactAction(0, (r, c), fill=True) for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0))
MAX_COMBINATIONS = 20_000  # sets of one size tried, at most (the first, in the pool's order)
SPARSE_SHARE = 0.5  # of every train input's cells, the background at least, for second opinions


def mostly_background(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> bool:
    """Whether every train input is at least SPARSE_SHARE background (`background_colour`): a
    few objects on an empty grid, whose empty cells read alike under one head and under
    actions in a row, so the pairs may leave both open. On a grid drawn all over, actions
    that read alike on every cell are rarely two different actions, and looking for them
    would take most of the planning of the simplest tasks."""
    background = background_colour(pairs)
    return all(np.mean(x == background) >= SPARSE_SHARE for x, _ in pairs)


def consistent_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    max_heads: int = 4,
    shift_bits: int = 5,
) -> list[ActionSet]:
    """Sets of one to `max_heads` candidate actions (`candidate_actions` of the first pair)
    under which every train output is a function of the heads' readings, cell by cell; the
    simplest first, those that copy what they read before those that learn a table of
    readings (`ActionSet.rank`), then those that leave fewer test and held-out cells
    unexplained. One head may also take a wider action (`single_actions`: longer shifts,
    dihedral elements after shifts, crops anywhere, zooms, down-scalings after dihedral
    elements). Sets of three or four heads are tried among the crops (parts), the dihedral
    elements, the cells of a down-scaled block and the outputs' symmetries and periods
    (`output_symmetries`, `output_periods`), and as local rules (`local_rules`) among the
    identity and a cell's neighbours, where the readings that change a cell recur
    (`edits_recur`). Where no one head explains the pairs, two actions in a row are tried:
    a head's, then the second layer's on the output lattice (`composed_sets`), and a
    sampling, then each tile's action (`per_tile_sets` with `sampled`). A periodic pattern
    with hidden cells gets one periodic read (`periodic_sets`); margins that repeat the input's
    edge cells or mirror it, a folded padding (`padding_sets`); outputs that are the middle of
    inputs whose margins vary, a centred crop (`centred_sets`). Where one head gives the
    only explanation and the train inputs are mostly background (`mostly_background`), the
    actions in a row are tried too, as second opinions ranked after it (`ActionSet.second`).
    Sets that read exactly alike are kept once (`_distinct`). Where a test input shows
    colours that no train grid does, the sets are ranked by the test cells they leave
    unexplained on it drawn in the pairs' colours (`drawn_as_seen`)."""
    (x0, y0) = pairs[0]
    symmetries = output_symmetries(pairs, shift_bits=shift_bits) + output_periods(pairs, shift_bits=shift_bits)
    candidates = candidate_actions(x0.shape, y0.shape, anchored_axes(pairs))
    candidates += [a for a in symmetries + stretched_reads(pairs) if a not in candidates]
    test_shapes = [x.shape for x, _ in tests]
    singles = [a for a in single_actions(pairs, shift_bits=shift_bits, also=test_shapes) if a not in candidates]
    candidates += singles
    usable = []
    read: dict[ExactAction, list[np.ndarray]] = {}
    test_read: dict[ExactAction, list[np.ndarray]] = {}
    for action in candidates:
        try:
            read[action] = [reading(action, x, y.shape, shift_bits) for x, y in pairs]
            test_read[action] = [reading(action, x, shape, shift_bits) for x, shape in tests]
        except ValueError:
            continue
        usable.append(action)
    alone = singles + [a for a in usable if a.pool]  # a head whose reading no other combines with
    crops = [a for a in usable if a.shift != (0, 0) and not a.fill and a not in singles]
    crops += [a for a in usable if a.shift == (0, 0) and a.scale == (1, 1)]  # the dihedral elements
    crops += [a for a in usable if a.down and not a.pool and a.shift == (0, 0)]  # with a block's other cells
    crops += [a for a in symmetries if a in usable and a not in crops]
    n_pairs = len(pairs)
    outputs, pair_of = train_cells(pairs)
    flat = {a: np.concatenate([r.reshape(-1) for r in read[a]]) for a in usable}
    found: list[ActionSet] = []
    explained: set[frozenset[ExactAction]] = set()
    neighbours = [a for a in NEIGHBOURS if a in usable]
    for k in range(1, max_heads + 1):
        pool = [a for a in usable if a not in alone] if k == 2 else usable if k == 1 else crops
        combos = itertools.islice(itertools.combinations(pool, k), MAX_COMBINATIONS)
        families = [(combos, math.comb(len(pool), k), False)]
        if k >= 3:
            families.append((*local_rules(neighbours, k), True))
        for combo, choices, local in ((c, n, local) for combos, n, local in families for c in combos):
            if any(frozenset(sub) in explained for j in range(1, k) for sub in itertools.combinations(combo, j)):
                continue  # a head more than a set that already explains the outputs
            keys = cell_keys([flat[a] for a in combo])
            if not is_function(keys, outputs):
                continue  # two cells read alike and ask for different colours
            if len(np.unique(keys)) == len(keys):
                continue  # every cell reads differently: a table of positions, not a rule
            explained.add(frozenset(combo))
            if longer_than_the_data(choices, len(np.unique(keys)), outputs):
                continue  # chosen among so many sets that the pairs cannot tell it from chance
            if local and not edits_recur(keys, flat[IDENTITY], outputs):
                continue  # a table of the pairs' edits, one reading each
            test_keys = [cell_keys([test_read[a][t].reshape(-1) for a in combo]) for t in range(len(tests))]
            found.append(ActionSet(combo, *support(keys, pair_of, n_pairs, test_keys)))
    pools = [a for a in usable if a.pool] + _counted_pools(pairs)
    found += counting_sets(pairs, pools, shift_bits, [x for x, _ in tests])
    found += per_tile_sets(pairs, tests, shift_bits)
    found += panel_sets(pairs, tests, shift_bits)
    found += periodic_sets(pairs, tests)
    found += padding_sets(pairs, tests)
    found += centred_sets(pairs, tests, shift_bits)

    def in_a_row() -> list[ActionSet]:
        """Two actions in a row: a head's, then the second layer's; a sampling, then each
        tile's action; a head onto a middle lattice, then a stage; a chain of one-axis actions."""
        more = per_tile_sets(pairs, tests, shift_bits, sampled=True)
        single = [a for a in usable if not a.pool]
        more += composed_sets(pairs, tests, single, read, test_read, shift_bits)
        more += staged_sets(pairs, tests, shift_bits)
        return more + chain_sets(pairs, tests, background_colour(pairs))

    one_head = any(len(f.actions) == 1 for f in found)
    if not one_head:  # no one head explains the pairs: two layers may
        found += in_a_row()
    found += overlay_sets(found, pairs, symmetries)
    ranking = _ranking(pairs, tests, shift_bits)
    kept = _distinct(sorted(found, key=ranking), pairs, tests, shift_bits)
    if one_head and len(kept) == 1 and mostly_background(pairs):  # actions in a row may answer otherwise
        seconds = sorted((replace(s, second=True) for s in in_a_row()), key=ranking)
        kept = _distinct(kept + seconds, pairs, tests, shift_bits)
    return kept


def local_rules(neighbours: Sequence[ExactAction], k: int) -> tuple[Iterator[tuple[ExactAction, ...]], int]:
    """The sets of k heads that read a cell and k − 1 of its `neighbours` (shifts of one cell
    with fill): a local rule, such as a gap between two cells of a colour filled, or the
    inside of a shape told by its corners. With how many such sets there are."""
    combos = ((IDENTITY, *c) for c in itertools.combinations(neighbours, k - 1))
    return combos, math.comb(len(neighbours), k - 1)


def _ranking(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int = 5,
) -> Callable[[ActionSet], tuple[int, int, int, int]]:
    """The sort key of the sets: `ActionSet.rank`, told whether the set copies what its heads
    read (`copies`), with the unexplained test cells counted on the tests drawn in the pairs'
    colours where some test shows a new one (`drawn_as_seen`). The sets keep their own count,
    which their fits go by."""
    outputs, pair_of = train_cells(pairs)
    drawn = [(drawn_as_seen(x, pairs), shape) for x, shape in tests]
    redrawn = any(d is not x for (d, _), (x, _) in zip(drawn, tests, strict=True))
    blanks = [(x, np.zeros(shape, dtype=np.int64)) for x, shape in drawn]

    def rank(s: ActionSet) -> tuple[int, int, int, int]:
        if s.rule is not None:  # a built rule answers every reading
            return s.rank()
        read = set_readings(s, pairs, shift_bits)
        copied = copies(read, outputs)
        if not redrawn or copied:
            return s.rank(copied)
        keys = cell_keys(list(read))
        test_keys = [cell_keys(list(set_readings(s, [blank], shift_bits))) for blank in blanks]
        _, unseen = support(keys, pair_of, len(pairs), test_keys)
        return replace(s, unseen=unseen).rank(copied)

    return rank


def drawn_as_seen(grid: np.ndarray, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """A test input with each colour that no train grid shows drawn in the train inputs' most
    frequent free colour (one that every pair keeps, neither added nor removed, and not the
    background). A fit permutes such colours alike, so a set that reads a new colour meets
    what the pairs show for a free one; counted as it is, every new colour would leave unexplained
    the cells of the sets that read it, and rank first the sets that read it least (a shift
    with fill past the grid's edge). Unchanged where no colour is new or none is free."""
    shown = set(np.unique(np.concatenate([g.reshape(-1) for pair in pairs for g in pair])).tolist())
    new = set(np.unique(grid).tolist()) - shown
    if not new:
        return grid
    told = {background_colour(pairs)}
    for x, y in pairs:
        told |= set(np.unique(x).tolist()) ^ set(np.unique(y).tolist())
    counts = np.bincount(np.concatenate([x.reshape(-1) for x, _ in pairs]), minlength=10)
    free = [c for c in np.argsort(-counts, kind="stable").tolist() if counts[c] and c not in told]
    if not free:
        return grid
    drawn = grid.copy()
    drawn[np.isin(grid, list(new))] = free[0]
    return drawn


def centred_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
) -> list[ActionSet]:
    """At most one set: the crop of each input's middle (`centred_crop`), where every train
    output is a function of its reading, cell by cell (and not every cell reads apart)."""
    action = centred_crop(pairs)
    if action is None:
        return []
    outputs, pair_of = train_cells(pairs)
    keys = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs]) + 1
    if not is_function(keys, outputs) or len(np.unique(keys)) == len(keys):
        return []
    test_keys = [reading(action, x, shape, shift_bits).reshape(-1) + 1 for x, shape in tests]
    return [ActionSet((action,), *support(keys, pair_of, len(pairs), test_keys))]


def counting_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    pools: Sequence[ExactAction],
    shift_bits: int = 5,
    tests: Sequence[np.ndarray] = (),
) -> list[ActionSet]:
    """One pooling head (of `pools`) each, whose cell rule is a count rule that the train pairs
    obey (`arcsolve.latformer.count_rules`): each cell the colour its block holds most often.
    It answers blocks that no train pair shows, so it leaves no cell unexplained. None that
    is as long as the data (the rare colours and the tie constraints it chose, among `pools`
    and the 2^10 sets of rare colours). Rare colours that are the train inputs' backgrounds
    take the `tests` inputs' backgrounds too (`with_test_backgrounds`)."""
    outputs, _ = train_cells(pairs)
    found = []
    for action in pools:
        blocks = set_readings(ActionSet((action,), 0, 0), pairs, shift_bits).T  # (cells, block): its colours
        counts = block_counts(blocks)
        rule = count_rule(counts, outputs)
        if rule is not None and not longer_than_the_data(len(pools) << 10, rule[1], outputs):
            counted = with_test_backgrounds(rule[0], counts, outputs, [x for x, _ in pairs], tests)
            found.append(ActionSet((action,), 0, 0, counts=counted))
    return found


def overlay_sets(
    sets: Sequence[ActionSet],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    symmetries: Sequence[ExactAction] = (),
    shift_bits: int = 5,
) -> list[ActionSet]:
    """The sets of two to four heads (one action each, no second-layer action, no pooling)
    whose train outputs an overlay rule gives (`arcsolve.latformer.overlay_rules`): each cell
    the first head's reading, in some order, that is not a clear colour. It answers every
    combination of readings, so it leaves no cell unexplained. One per set of actions and
    order that the train pairs allow. Each is then given, last in its order, every output
    symmetry (`symmetries`) it does not hold and that keeps the rule true on the train pairs,
    up to MAX_OVERLAID heads: on a test a hidden cell that the first heads read clear is
    filled from one more mirror image."""
    outputs, _ = train_cells(pairs)
    found, met = [], set()
    more = {a: set_readings(ActionSet((a,), 0, 0), pairs, shift_bits) for a in symmetries}  # (1, cells) each
    for s in sets:
        plain = s.tiles == (1, 1) and s.then is None and not s.window and s.counts is None
        if not plain or len(s.actions) < 2 or any(a.pool for a in s.actions) or s.actions in met:
            continue
        met.add(s.actions)
        chosen = set_readings(s, pairs)
        for rule in overlay_rules(chosen, outputs):
            actions, read = list(s.actions), chosen
            for extra in symmetries:
                if len(actions) == MAX_OVERLAID:
                    break
                if extra in actions:
                    continue
                wider = replace(rule, order=(*rule.order, len(actions)))
                if np.array_equal(wider.apply(np.concatenate([read, more[extra]])), outputs):
                    actions, read, rule = [*actions, extra], np.concatenate([read, more[extra]]), wider
            found.append(replace(s, actions=tuple(actions), unsupported=0, unseen=0, overlay=rule))
    return found


def _counted_pools(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[ExactAction]:
    """The pooling by the stride that every input is of its output, where its blocks hold more
    cells than a multiset key can (MAX_POOLED) and no more than a count rule reads
    (MAX_COUNTED): only a count rule may explain it."""
    strides = set()
    for x, y in pairs:
        (h, w), (H, W) = x.shape, y.shape
        strides.add((h // H, w // W) if h % H == 0 and w % W == 0 else None)
    if len(strides) != 1 or None in strides:
        return []
    (f_r, f_c) = strides.pop()
    if MAX_POOLED < f_r * f_c <= MAX_COUNTED and {f_r, f_c} <= set(SCALE_FACTORS):
        return [ExactAction(0, scale=(f_r, f_c), down=True, pool=True)]
    return []


def _distinct(
    sets: list[ActionSet],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int = 5,
    most: int = 64,
) -> list[ActionSet]:
    """The first `most` sets less those that read exactly what an earlier one reads, on the
    train pairs and the test inputs alike (a down-scaling shifted within the grid reads the
    same with fill or without): such a set would only fit the same answer again."""
    lattices = list(pairs) + [(x, np.zeros(shape, dtype=np.int64)) for x, shape in tests]
    first = sets[:most]
    signatures = [
        (s.tiles, s.lines, s.counts, s.overlay, set_readings(s, lattices, shift_bits).tobytes()) for s in first
    ]
    # a chain that reads as a later set of fewer layers (a head and a second layer's action,
    # a staged layer) gives its place to that set: the same answer, told more simply
    for i, s in enumerate(first):
        if s.chain is not None:
            simpler = [j for j in range(i + 1, len(first)) if signatures[j] == signatures[i] and first[j].chain is None]
            if simpler:
                first[i], signatures[i] = first[simpler[0]], signatures[simpler[0]]
    kept, seen = [], set()
    for s, signature in zip(first, signatures, strict=True):
        if signature not in seen:
            seen.add(signature)
            kept.append(s)
    return kept + sets[most:]
