"""Plugin registration for the lucent frontend."""
