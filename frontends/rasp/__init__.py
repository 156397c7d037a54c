"""The rasp frontend (in progress)."""
