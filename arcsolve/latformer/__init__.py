"""LatFormer: attention whose weights are rescaled by lattice masks (Atzeni et al., ICML 2023).

- masks: `reference_masks` (the paper's Table 1 masks, built exactly, and masked attention),
  `experts` (the gated lattice mask experts), `mask_kernels` (the exact kernels the experts'
  gates combine into one mask per example), `periods` (a grid's own period, through its
  holes, which periodic reads read by);
- the network: `model` (layers, heads, colour attention), `sizing` (output-size rules);
- fitting: `training` (the model-agnostic loop), `exact_starts` (exact lattice actions as
  starting points), `restarts`, `fit` (planning, solving and the two attempts), `explain`
  (`--explain`'s words);
- batched fitting: `canvases`, `batch` (one vmapped batch of fits), `batched` (the task stream);
- LatFormer+NL: `text_encoder`, `nl`.
"""
