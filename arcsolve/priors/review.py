"""Proposing prior labels for ARC tasks, and reviewing them by hand.

A task's proposal comes from the lattice rule (`arcsolve.priors.lattice_rule`) when it
explains the task, else from the heuristics (`arcsolve.priors.heuristics`). `review` shows
the proposals one by one for a person to confirm, edit or skip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from arcsolve.priors.annotations import VOCABULARY, Annotation, Annotations, load_annotations, save_annotations
from arcsolve.priors.heuristics import heuristic_priors
from arcsolve.priors.lattice_rule import explain, is_neighbourhood, is_overlay
from arcsolve.render import task_table
from arcsolve.tasks import Task


def propose(task: Task) -> Annotation:
    """The rules' label for a task: lattice explanation if one exists, else the heuristics."""
    explanation = explain(task)
    if explanation is not None and not explanation.priors:
        return Annotation(priors=["colour"], source="rule:colour-map", note=explanation.describe())
    if explanation is not None and not is_neighbourhood(explanation):
        priors = [p for p in VOCABULARY if p in explanation.priors]
        if is_overlay(explanation, task):
            return Annotation(
                priors=[*priors, "logic"], source="rule:overlay", note=explanation.describe()
            )
        return Annotation(priors=priors, source="rule:lattice", note=explanation.describe())
    priors, reasons = heuristic_priors(task)
    note = "; ".join(reasons)
    if explanation is not None:
        note = f"local rule {explanation.describe()}; {note}"
    return Annotation(priors=priors, source="rule:heuristics", note=note)


def parse_priors(text: str) -> list[str]:
    """A comma-separated list of priors typed by a person; ValueError names an unknown one."""
    priors = [p.strip() for p in text.split(",") if p.strip()]
    for prior in priors:
        if prior not in VOCABULARY:
            raise ValueError(f"'{prior}' is not a prior; choose from {', '.join(VOCABULARY)}")
    return list(dict.fromkeys(priors))


def review(
    tasks: Iterable[Task],
    out_path: Path | str,
    proposals: Annotations | None = None,
    ask: Callable[[str], str] = input,
    console: Console | None = None,
) -> Annotations:
    """Show tasks one by one for a person to confirm (enter), edit (a comma list) or skip (`s`).

    Every answer is saved to `out_path` at once; tasks already in that file are not asked
    again, so a review can stop (`q`, or end of input) and resume. A task's proposal comes
    from `proposals` when it is there, otherwise from `propose`.
    """
    console = console or Console()
    out = Path(out_path)
    done = dict(load_annotations(out).entries) if out.exists() else {}
    for task in tasks:
        if task.id in done:
            continue
        proposal = (proposals.entries.get(task.id) if proposals else None) or propose(task)
        console.print(task_table(task))
        why = escape(f"({proposal.source}: {proposal.note})")
        console.print(f"proposed: [bold]{escape(', '.join(proposal.priors))}[/] {why}")
        while True:
            try:
                answer = ask("enter = confirm, priors a,b = edit, s = skip, q = quit: ").strip()
            except EOFError:
                return Annotations(entries=done)
            if answer == "q":
                return Annotations(entries=done)
            if answer == "s":
                break
            try:
                priors = parse_priors(answer) if answer else proposal.priors
            except ValueError as exc:
                console.print(f"[red]{escape(str(exc))}[/]")
                continue
            note = proposal.note if answer == "" else "set by hand"
            done[task.id] = Annotation(priors=priors, source="manual", note=note)
            save_annotations(Annotations(entries=done), out)
            break
    return Annotations(entries=done)
