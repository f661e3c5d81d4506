"""Tests of arcsolve/dsl: every registered primitive, the families, the learners and the search."""
