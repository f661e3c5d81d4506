"""Models learned from a task's train pairs: cell rules and tables, stamps and object moves."""
