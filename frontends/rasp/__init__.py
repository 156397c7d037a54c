"""The RASP frontend: the language of "Thinking Like Transformers" (Weiss et al.), its
evaluator, its compiler to layers and heads, and bounded verification (see README.md)."""
