"""Reports and figures about generated data (summaries, the v1 re-solver, fidelity to the paper); never rows."""
