"""Plugin registration for the crasp frontend."""
