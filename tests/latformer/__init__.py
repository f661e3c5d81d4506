"""Tests of arcsolve/latformer: masks, experts, the model, fitting, batched fitting, NL."""
