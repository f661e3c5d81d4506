"""Tests of arcsolve/priors: the annotation schema, the lattice rule, heuristics and review."""
