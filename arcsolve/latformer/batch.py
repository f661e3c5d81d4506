"""One batch of fits (`Batch`): members of one signature stack their parameters
(`torch.func.stack_module_state`) and take every step together, whatever their grid shapes.
Every train pair of every member sits on an S×S canvas with its own lattice kernels
(`arcsolve.latformer.model.lattices`; padded cells get zero mask rows and columns and no
loss), and one `vmap(functional_call)` forward runs over all the pairs with their members'
parameters gathered in. Then one backward of the summed losses (members share no
parameter, so each gets exactly its own gradient) and one Adam update with a step count
per member. On a GPU a step is a captured CUDA graph, replayed.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from torch.nn.utils import parameters_to_vector
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from arcsolve.latformer.canvases import pad
from arcsolve.latformer.model import N_COLOURS, Lattices, lattices
from arcsolve.latformer.periods import grid_period
from arcsolve.latformer.training import Example, FitConfig, colour_permutations, fixed_colours


@dataclass(eq=False)
class FitJob:
    """One fit to run: a freshly initialised model and its examples."""

    key: Hashable
    model: nn.Module
    examples: list[Example]
    config: FitConfig
    cond: torch.Tensor | None = None
    deadline: float | None = None  # a time.perf_counter() value the fit must end by (its task's cap)
    cancelled: bool = False


class _Units(NamedTuple):
    """Every train pair of every member, on canvases: the batch's rows (one per pair)."""

    member: torch.Tensor  # (U,) which member each pair belongs to
    xs: torch.Tensor  # (U, S_in, S_in) input colours
    ys: torch.Tensor  # (U, S_out, S_out) output colours
    weight: torch.Tensor  # (U, S_out, S_out) 1/(H·W) on the real output cells, 0 on padding
    lattice: Lattices  # stacked over the pairs


def _join(trees: list, how: Callable = torch.stack):
    """Stack (or concatenate) pytrees of tensors of one structure, leaf by leaf."""
    leaves, specs = zip(*(tree_flatten(t) for t in trees), strict=True)
    return tree_unflatten([how(group) for group in zip(*leaves, strict=True)], specs[0])


@dataclass(eq=False)
class _Member:
    job: FitJob
    units: _Units  # its pairs, member index 0
    fixed: list[int]
    generator: torch.Generator
    check_perms: torch.Tensor
    deadline: float | None
    start: float
    step: int = 0  # steps taken
    losses: list[float] = field(default_factory=list)  # one per step taken, once `Batch.settle` read them


def unit_bucket(n: int, current: int = 0) -> int:
    """How many unit rows a CUDA graph is captured for when n units are live: `current` while
    n fits in it and fills more than half of it, else the first of 8, 12, 16, 24, 32, 48, …
    that holds n (a capture serves many joins and leaves; a fresh bucket is at most a third
    padding)."""
    if n <= current and 2 * n > current:
        return current
    size = 8
    while size < n:
        size = size * 3 // 2 if size & (size - 1) == 0 else size * 4 // 3
    return size


class _PassThrough(TorchDispatchMode):
    """Runs every operation as it is. Measured on an H100 with PyTorch 2.11: capturing a
    batched step fails inside autograd's backward ("operation not permitted when stream is
    capturing", whether the backward runs on autograd's device thread or the caller's, with
    `.backward()` or `autograd.grad`); under any Python dispatch mode the same step captures,
    and its replays follow `fit`'s trajectory (tests/latformer/test_devices.py). Which operation takes
    the other path was not found."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Batch:
    """The members of one signature, their stacked parameters and Adam state.

    A step's rows are the members' train pairs, each on an S×S canvas (`lattices`), with
    its member's parameters gathered in: one vmapped forward for every pair of every member,
    whatever their shapes. Padded cells weigh nothing in the loss and in the checks.

    Every member has a *seat*: a row of the parameters, Adam's moments and its step count.
    With `graphs` (on a GPU) the batch has all its seats from the start and a step is a
    captured CUDA graph, replayed: the host no longer queues a step's thousands of small
    kernels one by one, which is what bounds an eager batched step. A graph reads
    fixed tensors, so members join and leave by writing into them: a seat's row is
    overwritten, and the pairs are rewritten into unit rows padded to `unit_bucket` (padding
    weighs nothing); only a change of bucket captures a new graph. Without graphs (a CPU)
    the rows are exactly the members' and their pairs. On a CPU, `graphs` keeps the fixed
    rows and runs each step eagerly: the tests check that layout there."""

    betas, eps = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults

    def __init__(
        self,
        template: nn.Module,
        augmentations: int,
        sides: tuple[int, int],
        device: torch.device,
        config: FitConfig,
        seats: int = 16,
        graphs: bool = False,
    ):
        self.base = copy.deepcopy(template).to("meta")  # the architecture, without weights
        self.augmentations = augmentations
        self.sides = sides
        self.device = device
        self.graphs = graphs
        self.rounded_gates = config.rounded_gates  # `FitConfig.rounded_gates`, for every member
        # every member's parameters, one row each and one leaf for all: a step gathers them
        # once and Adam updates them in a few whole-batch operations, not a few per parameter
        named = list(template.named_parameters())
        self.layout = [(name, p.shape) for name, p in named]
        self.sizes = [p.numel() for _, p in named]
        # each parameter's learning rate, (P,): the gates move faster (FitConfig.gate_lr)
        lrs = [torch.full((p.numel(),), config.lr_for(name), dtype=p.dtype) for name, p in named]
        self.lr = torch.cat(lrs).to(device)
        rows = seats if graphs else 0
        row = parameters_to_vector(template.parameters()).detach()
        self.flat = row.new_zeros(rows, len(row)).requires_grad_()  # (rows, P), `parameters_to_vector`'s order
        self.moments = (row.new_zeros(rows, len(row)), row.new_zeros(rows, len(row)))  # Adam's m and v
        self.steps = torch.zeros(rows, dtype=torch.float64, device=device)  # steps each row has taken
        _, buffers = stack_module_state([template])
        self.buffers = {k: b.new_zeros(rows, *b.shape[1:]) for k, b in buffers.items()}
        self.cond: torch.Tensor | None = None  # (rows, ...) once a member with a condition joins
        identity = torch.arange(N_COLOURS, device=device).repeat(rows, augmentations + 1, 1)
        self.perms = identity  # (rows, A + 1, 10): this step's colour maps, row by row
        self.seated: list[_Member | None] = [None] * rows  # row i's member; None for a free seat
        self.ticks = 0  # steps the batch has taken
        self._units: _Units | None = None  # the rows' units; None after a join or leave
        self._static: _Units | None = None  # with graphs: the padded unit rows a capture reads
        self._graph: torch.cuda.CUDAGraph | None = None
        self._warm = False  # has a step run eagerly on these tensors (before a capture)
        self._out: torch.Tensor | None = None  # the graph's losses, (rows,)
        self._pending: list[tuple[list[_Member | None], torch.Tensor]] = []  # losses not yet read back

    @property
    def members(self) -> list[_Member]:
        return [m for m in self.seated if m is not None]

    def live(self) -> list[tuple[int, _Member]]:
        """(row, member) for every seated member."""
        return [(i, m) for i, m in enumerate(self.seated) if m is not None]

    def _member_units(self, job: FitJob) -> _Units:
        """A job's train pairs as rows of this batch: padded to its canvases, with their kernels."""
        S_out, S_in = self.sides
        span = 2**job.model.config.shift_bits - 1
        dtype = next(job.model.parameters()).dtype
        rows = []
        for x, y in job.examples:
            weight = pad(torch.ones_like(y, dtype=dtype), S_out) / y.numel()
            tiles, hole, lines = job.model.config.tiles, job.model.config.hole, job.model.config.lines
            period = (1, 1) if hole is None else grid_period(x.cpu().numpy(), hole)
            lattice = lattices(
                tuple(x.shape), tuple(y.shape), span, (S_out, S_in), self.device, dtype, tiles, None, period,
                lines=lines,
            )
            rows.append((pad(x, S_in), pad(y, S_out), weight, lattice))
        xs, ys, weight, lattice = (_join(list(column)) for column in zip(*rows, strict=True))
        member = torch.zeros(len(rows), dtype=torch.long, device=self.device)
        return _Units(member, xs, ys, weight, lattice)

    def join(self, job: FitJob) -> None:
        """Seat a job's model, with fresh Adam state; its colour maps come from generators
        seeded as in `arcsolve.latformer.fit.fit`."""
        fixed = fixed_colours(job.examples) if job.config.fixed is None else list(job.config.fixed)
        check_generator = torch.Generator().manual_seed(-1 - job.config.seed)
        member = _Member(
            job,
            self._member_units(job),
            fixed,
            torch.Generator().manual_seed(job.config.seed),
            colour_permutations(self.augmentations, fixed, check_generator).to(self.device),
            job.deadline,
            time.perf_counter(),
        )
        if None not in self.seated:
            self._add_row()
        i = self.seated.index(None)
        _, buffers = stack_module_state([job.model])
        with torch.no_grad():
            self.flat[i] = parameters_to_vector(job.model.parameters())
            for t in (*self.moments, self.steps):
                t[i] = 0
            for k, b in buffers.items():
                self.buffers[k][i] = b[0]
            if job.cond is not None:
                if self.cond is None:
                    self.cond = job.cond.new_zeros(len(self.seated), *job.cond.shape)
                    self._drop_capture()
                self.cond[i] = job.cond
        self.seated[i] = member
        self._units = None

    def _add_row(self) -> None:
        """One more seat (without graphs, where the rows are exactly the members; with graphs
        every seat exists from the start, and new tensors would need a new capture)."""
        self._remake_rows(lambda t: torch.cat([t, t.new_zeros(1, *t.shape[1:])]))
        self.seated.append(None)

    def _remake_rows(self, remake: Callable[[torch.Tensor], torch.Tensor]) -> None:
        """Replace every tensor with a row per seat by `remake` of it (rows added or dropped);
        a captured graph read the old tensors, so it goes."""
        self._drop_capture()
        self.flat = remake(self.flat.detach()).requires_grad_()
        self.moments = tuple(remake(t) for t in self.moments)
        self.steps = remake(self.steps)
        self.buffers = {k: remake(b) for k, b in self.buffers.items()}
        self.cond = None if self.cond is None else remake(self.cond)

    def _drop_capture(self) -> None:
        """Forget the captured graph: the next step runs eagerly, the one after captures again."""
        self._graph, self._warm = None, False

    def leave(self, rows: list[int]) -> None:
        """Free these seats. With graphs a free seat keeps its row (a graph reads the tensors
        it was captured with); without, the rows are dropped."""
        for i in rows:
            self.seated[i] = None
        self._units = None
        if self.graphs:
            return
        keep = [i for i, m in enumerate(self.seated) if m is not None]
        index = torch.tensor(keep, dtype=torch.long, device=self.device)
        self._remake_rows(lambda t: t[index])
        self.seated = [self.seated[i] for i in keep]

    def params(self, rows: torch.Tensor) -> dict[str, torch.Tensor]:
        """(N, P) rows of parameters as {name: (N, *shape)} views."""
        parts = rows.split(self.sizes, dim=1)
        return {name: part.view(len(rows), *shape) for (name, shape), part in zip(self.layout, parts, strict=True)}

    def model_of(self, i: int) -> nn.Module:
        """Row i's parameters, copied back into its member's own module."""
        model = self.seated[i].job.model
        with torch.no_grad():
            row = self.params(self.flat[i : i + 1])
            for name, p in model.named_parameters():
                p.copy_(row[name][0])
            for name, b in model.named_buffers():
                b.copy_(self.buffers[name][i])
        return model

    # ------------------------------------------------------------------ the computation

    def _gather(self, rows: list[int], at: list[int]) -> _Units:
        """The units of the members in these rows, each unit pointing at `at[k]` for row k."""
        parts = [self.seated[i].units for i in rows]
        member = torch.cat([torch.full_like(u.member, k) for k, u in zip(at, parts, strict=True)])
        return _Units(member, *_join([u[1:] for u in parts], torch.cat))

    def units(self) -> _Units:
        """Every seated member's units, pointing at its row; with graphs, written into the
        tensors of the current capture (padded with units that weigh nothing) or, when they
        no longer fit its bucket, into new ones (and the next step captures again)."""
        if self._units is not None:
            return self._units
        rows = [i for i, _ in self.live()]
        fresh = self._gather(rows, rows)
        if not self.graphs:
            self._units = fresh
            return fresh
        n = len(fresh.member)
        size = unit_bucket(n, 0 if self._static is None else len(self._static.member))
        if self._static is None or size != len(self._static.member):
            leaves, spec = tree_flatten(fresh)
            self._static = tree_unflatten([t.new_zeros(size, *t.shape[1:]) for t in leaves], spec)
            self._drop_capture()
        for static, live in zip(tree_flatten(self._static)[0], tree_flatten(fresh)[0], strict=True):
            static[:n] = live
            static[n:] = 0  # padding: member 0, zero grids and lattices, zero weight
        self._units = self._static
        return self._units

    def _rows(self, flat, buffers, cond, units: _Units, perms: torch.Tensor):
        """Per unit: its member's parameters, buffers and condition, and its recoloured pair,
        (U, A, S_in, S_in) and (U, A, S_out, S_out), under its member's colour maps."""
        index = units.member
        # with graphs, index_select: its backward adds rows up (an indexing's backward sorts;
        # suspected in a capture, not isolated: see `_PassThrough`)
        gathered = self.params(flat.index_select(0, index) if self.graphs else flat[index])
        buffers = {k: v[index] for k, v in buffers.items()}
        cond = None if cond is None else cond[index]
        unit_perms = perms[index]  # (U, A, 10)
        xs = vmap(lambda p, g: p[:, g])(unit_perms, units.xs)
        ys = vmap(lambda p, g: p[:, g])(unit_perms, units.ys)
        return gathered, buffers, cond, xs, ys

    def _forward(self, params, buffers, x, lattice, cond, discrete=False, smooth=False):
        out_shape = (self.sides[0], self.sides[0])
        kwargs = {"cond": cond, "discrete": discrete, "smooth": smooth, "lattice": lattice}
        if self.graphs and "embed.weight" in params:
            # the colours embedded as one-hot rows times the table (the same values): an
            # embedding's backward sorts and counts its indices, suspected of reading back to
            # the host during a capture (not isolated: see `_PassThrough`)
            table = params["embed.weight"]
            kwargs["embedded"] = (x[..., None] == torch.arange(N_COLOURS, device=x.device)).to(table.dtype) @ table
        return functional_call(self.base, (params, buffers), (x, out_shape), kwargs)[0]

    def losses(self, smoothing_loss: bool) -> torch.Tensor:
        """One training step's loss per row, (rows,), under this step's colour maps: each
        pair's mean cross-entropy over its real cells and colour maps, summed over the pairs
        (as `arcsolve.latformer.fit.fit` weighs them)."""
        units = self.units()
        params, buffers, cond, xs, ys = self._rows(self.flat, self.buffers, self.cond, units, self.perms)

        def unit_loss(params, buffers, x, y, weight, lattice, cond):
            loss = 0.0
            rounded = self.rounded_gates
            for smooth in (False, True) if smoothing_loss and not rounded else (False,):
                logits = self._forward(params, buffers, x, lattice, cond, discrete=rounded, smooth=smooth)
                ce = F.cross_entropy(logits.flatten(0, 2), y.flatten(), reduction="none").view(y.shape)
                loss = loss + (ce * weight).sum() / len(x)
            return loss

        in_dims = (0, 0, 0, 0, 0, 0, None if cond is None else 0)
        per_unit = vmap(unit_loss, in_dims=in_dims)(params, buffers, xs, ys, units.weight, units.lattice, cond)
        return per_unit.new_zeros(len(self.seated)).index_add(0, units.member, per_unit)

    def _step(self, smoothing_loss: bool) -> torch.Tensor:
        """Losses, gradients and Adam on the batch's tensors, nothing read back: what a CUDA
        graph captures."""
        losses = self.losses(smoothing_loss)
        (grad,) = torch.autograd.grad(losses.sum(), self.flat)
        self._adam(grad)
        return losses.detach()

    def _new_perms(self) -> None:
        """This step's colour maps, drawn on the host from each member's generator (in the
        order `fit` draws them), into `perms` (in place with graphs)."""
        identity = torch.arange(N_COLOURS).repeat(self.augmentations + 1, 1)
        drawn = torch.stack(
            [
                identity if m is None else colour_permutations(self.augmentations, m.fixed, m.generator)
                for m in self.seated
            ]
        )
        if self.graphs:  # from pinned memory, so that the copy does not wait for the device
            self.perms.copy_(drawn.pin_memory() if self.device.type == "cuda" else drawn, non_blocking=True)
        else:
            self.perms = drawn.to(self.device)

    def train_step(self, smoothing_loss: bool) -> None:
        """One step for every member: losses, one backward, Adam. The losses stay on the
        device until `settle`: reading them back each step would wait for every step."""
        self.units()
        self._new_perms()
        on_gpu = self.graphs and self.device.type == "cuda"
        losses = self._replay(smoothing_loss) if on_gpu else self._step(smoothing_loss)
        self._pending.append((list(self.seated), losses))
        for m in self.members:
            m.step += 1
        self.ticks += 1

    def _replay(self, smoothing_loss: bool) -> torch.Tensor:
        """`_step` as a CUDA graph: captured on the second step on a set of tensors (the first
        runs eagerly, on a side stream, as CUDA's rules ask), replayed from then on."""
        if self._graph is None and not self._warm:
            side = torch.cuda.Stream(self.device)
            side.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(side):
                losses = self._step(smoothing_loss)
            torch.cuda.current_stream(self.device).wait_stream(side)
            self._warm = True
            return losses
        if self._graph is None:
            self._graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self._graph), _PassThrough():
                self._out = self._step(smoothing_loss)
        self._graph.replay()
        return self._out.clone()

    def settle(self) -> None:
        """Record the losses of the steps taken so far in each member's `losses`."""
        for seated, losses in self._pending:
            for m, loss in zip(seated, losses.tolist(), strict=True):
                if m is not None:
                    m.losses.append(loss)
        self._pending.clear()

    def _adam(self, grad: torch.Tensor) -> None:
        """torch.optim.Adam's update, with each row's own step count (members join at any
        time): the steps it has taken, this one included."""
        p, (m, v) = self.flat, self.moments
        b1, b2 = self.betas
        with torch.no_grad():
            # a parameter the architecture leaves unused gets zero gradients, so m and v stay 0
            # and it does not move (torch's Adam skips it)
            self.steps.add_(1)
            m.mul_(b1).add_(grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
            bias1 = (1 - b1**self.steps).to(p.dtype)[:, None]
            bias2 = (1 - b2**self.steps).to(p.dtype)[:, None]
            p.sub_(self.lr / bias1 * m / (v.sqrt() / bias2.sqrt() + self.eps))

    def reproduced(self, rows: list[int]) -> list[bool]:
        """Do the members in these rows, with discretised gates, reproduce their pairs (real
        cells) under their check maps?"""
        members = [self.seated[i] for i in rows]
        index = torch.tensor(rows, dtype=torch.long, device=self.device)
        buffers = {k: v[index] for k, v in self.buffers.items()}
        cond = None if self.cond is None else self.cond[index]
        units = self._gather(rows, list(range(len(rows))))
        perms = torch.stack([m.check_perms for m in members])
        params, buffers, cond, xs, ys = self._rows(self.flat.detach()[index], buffers, cond, units, perms)

        def unit_logits(params, buffers, x, lattice, cond):
            return self._forward(params, buffers, x, lattice, cond, discrete=True)

        with torch.no_grad():
            in_dims = (0, 0, 0, 0, None if cond is None else 0)
            logits = vmap(unit_logits, in_dims=in_dims)(params, buffers, xs, units.lattice, cond)
        real = (units.weight > 0)[:, None]  # (U, 1, S_out, S_out)
        right = ((logits.argmax(-1) == ys) | ~real).flatten(1).all(1)  # (U,)
        wrong = torch.zeros(len(members), dtype=torch.long, device=self.device)
        return (wrong.index_add(0, units.member, (~right).long()) == 0).tolist()
