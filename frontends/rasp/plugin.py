"""Plugin registration for the rasp frontend."""
