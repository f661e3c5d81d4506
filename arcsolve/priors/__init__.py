"""Core-knowledge priors of ARC tasks: `annotations` (the schema, the bundled file and the
geometric subsets) and `annotate` (rules that propose labels, and the review loop)."""
