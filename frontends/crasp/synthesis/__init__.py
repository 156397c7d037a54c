"""C-RASP synthesis (issue 6): data for the paper's benchmark languages, simulated-annealing
search, minimisation and constrained learning that loop with the model checker."""
