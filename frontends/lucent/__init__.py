"""The lucent frontend (in progress)."""
