"""Plugin registration for kinduct bench."""
