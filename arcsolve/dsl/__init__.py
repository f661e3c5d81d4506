"""DSL program search: grid primitives (`primitives`), programs as data (`program`), search.

`search.solve(task, config)` is the `--model dsl` solver; `program.format_program` prints a
program for `--explain`.
"""
