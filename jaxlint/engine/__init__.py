"""The analysis engine: one parse, one model of what is traced, read by every rule."""

from jaxlint.engine.model import FileModel

__all__ = ["FileModel"]
