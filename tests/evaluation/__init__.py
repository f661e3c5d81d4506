"""Tests of arcsolve/evaluation: scoring, results files, the runner, reports, export."""
