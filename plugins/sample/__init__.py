"""``kinduct sample``: labelled words from any acceptor."""
