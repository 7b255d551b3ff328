"""jaxlint: a static-analysis linter for JAX pitfalls."""

__version__ = "0.1.0"
