"""Tests of arcsolve/bench: synthetic tasks, baselines and the sample-efficiency study."""
