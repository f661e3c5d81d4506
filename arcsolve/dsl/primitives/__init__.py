"""Pure grid functions grouped by kind; `arcsolve.dsl.registry` registers them."""
