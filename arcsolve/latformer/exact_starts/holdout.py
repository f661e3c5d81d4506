"""Whether the table of readings that a fit learned holds out (`table_contradictions`).

A start of several heads whose outputs are a function of their readings leaves the table
from readings to colours to the FFN. The table always reproduces the train pairs, since
it is fitted on them; whether it means anything shows where a cell's readings are new.
There, the same readings with the colours renamed (`pattern`: the background kept, every
other colour numbered by where it is first read) may have been seen, and the table they
show says what the cell should be: the colour a given head reads, or one fixed colour.
A table that asks otherwise on a pair left out, or on a test input, is a lookup of the
cells it was shown rather than a rule: an overlay of halves holds out, a table of sixty
readings fitted to three pairs does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.colours import background_colour, set_readings

Pattern = tuple[int, ...]
# how an answer whose table does not hold out begins its detail (`arcsolve.latformer.fit`)
NOT_HELD_OUT = "not verified: with colours renamed"
# a renamed colour: the head that first reads it, counted from here (outputs in 0…9 stay apart)
RENAMED = 100


def pattern(key: Sequence[int], output: int, background: int) -> tuple[Pattern, int]:
    """The readings `key` with the colours renamed, and `output` as the same renaming gives
    it: the background and reading nothing (negative) stay as they are, any other colour
    becomes RENAMED + the order in which the heads first read it; an output that no head
    reads stays the colour it is."""
    names: dict[int, int] = {}
    renamed = []
    for colour in key:
        if colour < 0 or colour == background:
            renamed.append(colour)
        else:
            renamed.append(names.setdefault(colour, RENAMED + len(names)))
    return tuple(renamed), names.get(output, output)


def _table(cells: Sequence[tuple[Pattern, int]]) -> dict[Pattern, set[int]]:
    table: dict[Pattern, set[int]] = {}
    for key, output in cells:
        table.setdefault(key, set()).add(output)
    return table


def _contradicted(
    keys: Sequence[tuple[int, ...]], cells: Sequence[tuple[Pattern, int]], seen: set[tuple[int, ...]],
    table: dict[Pattern, set[int]],
) -> int:
    """The cells whose readings `seen` lacks and whose renamed readings `table` maps to one
    other output than theirs."""
    return sum(
        1
        for key, (renamed, output) in zip(keys, cells, strict=True)
        if key not in seen and len(table.get(renamed, ())) == 1 and output not in table[renamed]
    )


def table_contradictions(
    start: ActionSet,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, np.ndarray]] = (),
) -> int:
    """How many cells contradict the table of readings `start`'s fit learned, with colours
    renamed (`pattern`): each train pair's cells whose readings no other pair shows, against
    the other pairs' table (leave one pair out), and each test cell whose readings no train
    pair shows, against the train pairs' table, with `tests` the (test input, predicted
    output) grids. A renamed reading counts only where the table gives it one output. 0 for
    a start whose rule is built (an overlay or a count), of one reading per cell, or whose
    readings are no colours (a pooling's blocks)."""
    if start.rule is not None or start.chain is not None or any(a.pool for a in start.actions):
        return 0
    train = set_readings(start, pairs)
    if train.shape[0] < 2:
        return 0
    background = background_colour(pairs)
    keys: list[list[tuple[int, ...]]] = []
    cells: list[list[tuple[Pattern, int]]] = []
    start_cell = 0
    for _, y in pairs:
        read = [tuple(k) for k in train[:, start_cell : start_cell + y.size].T.tolist()]
        start_cell += y.size
        keys.append(read)
        cells.append([pattern(k, o, background) for k, o in zip(read, y.reshape(-1).tolist(), strict=True)])
    wrong = 0
    for left in range(len(pairs)):  # one pair alone: no other pair, so no table to contradict
        others = {k for i in range(len(pairs)) if i != left for k in keys[i]}
        table = _table([c for i in range(len(pairs)) if i != left for c in cells[i]])
        wrong += _contradicted(keys[left], cells[left], others, table)
    seen = {k for read in keys for k in read}
    table = _table([c for pair in cells for c in pair])
    for grid, predicted in tests:
        read = [tuple(k) for k in set_readings(start, [(grid, predicted)]).T.tolist()]
        answer = [pattern(k, o, background) for k, o in zip(read, predicted.reshape(-1).tolist(), strict=True)]
        wrong += _contradicted(read, answer, seen, table)
    return wrong
