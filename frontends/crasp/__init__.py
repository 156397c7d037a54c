"""The crasp frontend (in progress)."""
