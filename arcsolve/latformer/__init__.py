"""LatFormer: attention whose weights are rescaled by lattice masks (Atzeni et al., ICML 2023).

`reference_masks` (the paper's Table 1 masks, built exactly), `experts` (the gated lattice mask
experts and the mask kernels they drive), `model` (the network), `sizing` (output-size rules),
`fit` (the per-task fitting loop and the `--model latformer` solvers), `batched` (many fits as
one vmapped computation), `text_encoder` and `nl` (LatFormer+NL on LARC).
"""
