"""The external Kind 2 backend (in progress)."""
