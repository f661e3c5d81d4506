"""Sets of exact actions that explain the train pairs (`ActionSet`), and the checks the set
searches share: the train outputs' cells (`train_cells`), whether the outputs are a function
of the heads' readings cell by cell (`is_function`), whether a set copies what it reads
(`copies`), the cells a set leaves unexplained (`support`), and whether a set is no shorter
than the data it explains (`longer_than_the_data`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve.latformer.count_rules import CountRule
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import NOTHING
from arcsolve.latformer.model import Chain
from arcsolve.latformer.overlay_rules import OverlayRule


@dataclass(frozen=True)
class ActionSet:
    """Head actions whose readings determine the train outputs cell by cell. With `tiles`
    (a, b) ≠ (1, 1), one head whose a·b actions are its tiles' (row-major); with `lines` too,
    its panels' between lines that many cells wide, and one more action, the lines'."""

    actions: tuple[ExactAction, ...]
    unsupported: int  # cells of a pair whose readings no other pair shows (leave one pair out)
    unseen: int  # test cells whose readings no train pair shows
    tiles: tuple[int, int] = (1, 1)
    lines: int = 0  # per-panel actions (`panel_sets`): the width of the lines between the panels
    fixed: tuple[int, ...] | None = None  # colours its fit must not permute (`colours_to_fix`)
    # the second layer's action on the output lattice (a shift, a dihedral element or an
    # up-scaling), read after the heads': an output cell takes what the first layer wrote
    # where `then` reads
    then: ExactAction | None = None
    window: bool = False  # the last head marks a window of the output (`windowed_sets`)
    counts: CountRule | None = None  # a pooling head's cell rule, when it counts (`counting_sets`)
    overlay: OverlayRule | None = None  # the heads' cell rule, when it is an overlay (`overlay_sets`)
    # a staged first layer (`staged_sets`): the heads act onto a middle lattice, the output's
    # sides divided by `middle`, and `stage` carries what they wrote onto the output lattice
    stage: ExactAction | None = None
    middle: tuple[int, int] | None = None
    # a chained first layer (`chain_sets`): the head acts onto the (turned) input lattice, then
    # each of `steps` onto the next of `chain`'s lattices, the last the output's
    chain: Chain | None = None
    steps: tuple[ExactAction, ...] = ()
    recoloured: bool = False  # a chain whose cells take their colours through a table of what they read
    # a second opinion: two actions in a row where one head alone gave the only explanation;
    # it may give attempt 2, never attempt 1 (`arcsolve.latformer.restarts.preference`)
    second: bool = False

    @property
    def rule(self) -> CountRule | OverlayRule | None:
        """The cell rule its model is built to compute (a count or an overlay rule), or None
        when the FFN learns it."""
        return self.counts or self.overlay

    def rank(self, copies: bool = False) -> tuple[int, int, int, int]:
        """Sort key, simplest first: how many different actions (those an overlay rule chose,
        not the symmetries it adds for hidden cells), then how its cells take their colours,
        then the unexplained cells. A chain counts as a head and one more layer, whatever its
        steps. Of sets of as many actions, a chain comes first: it copies each cell it reads,
        with no table of readings to learn. Then a set that `copies` (each train output cell
        takes the colour its one reading names, or the one colour of the cells that read
        nothing): it has no table either, and answers readings that the pairs never show, or
        that one pair alone shows, by copying them, so it leaves no cell unexplained. Then
        the sets that learn a table of readings, and the chains that learn one (`recoloured`)."""
        if self.chain is not None:
            return (2, 2 * int(self.recoloured), self.unseen, self.unsupported)
        actions = len(set(self.actions)) if self.overlay is None else self.overlay.chosen
        layers = (self.then is not None) + (self.stage is not None)
        if copies:
            return (actions + layers, 1, 0, 0)
        return (actions + layers, 2, self.unseen, self.unsupported)


def train_cells(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Every train output cell's colour, the pairs' cells one after another, and the pair
    each cell belongs to."""
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    pair_of = np.concatenate([np.full(y.size, p) for p, (_, y) in enumerate(pairs)])
    return outputs, pair_of


def is_function(keys: np.ndarray, outputs: np.ndarray) -> bool:
    """Do cells with equal keys always ask for the same colour?"""
    return len(np.unique(keys * 10 + outputs)) == len(np.unique(keys))


def copies(read: np.ndarray, outputs: np.ndarray) -> bool:
    """Whether a set's cells take their colours with no table, from what its heads read in
    every train output cell (heads × cells) and the outputs (cells): one reading per cell,
    and each cell the colour it reads, the cells that read nothing aside (they take one
    colour, the set being a function of its readings). A colour the test alone shows is
    copied like any other."""
    return len(read) == 1 and bool(((read[0] == outputs) | (read[0] == NOTHING)).all())


def support(
    keys: np.ndarray, pair_of: np.ndarray, n_pairs: int, test_keys: Sequence[np.ndarray]
) -> tuple[int, int]:
    """(unsupported, unseen) as `ActionSet` counts them, from the train cells' keys (their
    readings as one integer), the pair of each cell and the test cells' keys."""
    distinct, where = np.unique(keys, return_inverse=True)
    # pairs showing each key: a key only one pair shows is unsupported when it is held out
    shown = np.zeros((len(distinct), n_pairs), dtype=bool)
    shown[where, pair_of] = True
    unsupported = int((shown.sum(1)[where] == 1).sum()) if n_pairs > 1 else 0
    unseen = int(sum((~np.isin(t, distinct)).sum() for t in test_keys))
    return unsupported, unseen


def longer_than_the_data(choices: int, entries: int, outputs: np.ndarray) -> bool:
    """Is a set that explains the outputs no shorter than they are? Its description is the
    bits that pick it among `choices` sets and the `entries` of its cell rule, each one of
    the outputs' colours; the outputs' own is every cell one of their colours. A set that is
    not shorter fits by chance (one cell among a hundred offsets that happens to hold each
    1×1 output's colour), so it is no starting point."""
    bits_per_cell = math.log2(max(2, len(np.unique(outputs))))
    return math.log2(choices) + entries * bits_per_cell >= outputs.size * bits_per_cell


def edits_recur(keys: np.ndarray, own: np.ndarray, outputs: np.ndarray) -> bool:
    """Do the readings under which a cell changes colour recur? `keys` are the train cells'
    readings as one integer, `own` each cell's own input colour. A local rule earns its
    table only where the readings it changes a cell under are at most half as many as the
    cells it changes: each is seen changing two cells, on average. Otherwise the table lists
    the pairs' edits one by one (three 3×3 pairs whose cells, read with three neighbours,
    are nearly each a reading of its own)."""
    changed = outputs != own
    return 2 * len(np.unique(keys[changed])) <= int(changed.sum())
