"""Tests of the data layer: tasks, loaders, rendering."""
