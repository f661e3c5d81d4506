"""Exact lattice actions as starting points of a fit.

Gradient descent on products of gates settles near where it starts, so a restart that
starts with its heads' gates at exact actions (`ExactAction`, `gate_bits`) explores what
plain restarts from one initial mixture rarely reach: y = f(g1·x, …, gK·x) with two to four
different actions g_k. Which actions to start from is decided on the train pairs
themselves: every head's reading of every pair is computed as the model's own mask kernels
read (`readings`), and a set of actions is kept when the outputs are a function of the
heads' readings cell by cell (`consistent_sets`): no two cells with the same readings ask
for different colours. A set may also name the second layer's action (`ActionSet.then`),
read after the heads': g2·(g1·x), such as a tiling then shifted, or a sampling then
up-scaled. A pooling head's set may instead carry a count rule (`ActionSet.counts`,
`arcsolve.latformer.count_rules`): each cell the colour its block holds most often, which
answers histograms the train pairs never show.

The modules, each importing only those above it:
- `actions`: the exact action of a head (`ExactAction`) and the gates that write it;
- `readings`: what a head at an action reads, and the second layer's action after it;
- `action_sets`: a set of actions that explains the train pairs (`ActionSet`), and the
  checks the searches share;
- `candidates`: the short candidates from a pair's shapes, and the outputs' symmetries
  and periods;
- `single_heads`: one head's wider actions, screened in numpy;
- `windows`: one head's action inside a window of the output;
- `composed`: a head's action, then the second layer's;
- `per_tile`: one action per tile of a tiling;
- `periodic`: a periodic read, where the outputs repair a periodic pattern's hidden cells;
- `paddings`: a padding that repeats the input's edge cells or mirrors it;
- `chains`: a dihedral element, then a chain of one-axis actions, each onto a lattice of
  its own (`ActionSet.chain`, a chained first layer);
- `colours`: what a set's heads read, and the colours its fit keeps fixed;
- `holdout`: whether the table of readings a fit learned holds out with colours renamed;
- `consistent`: the search that calls the others (`consistent_sets`), and the local rules
  that read a cell and its neighbours (`local_rules`).
"""
