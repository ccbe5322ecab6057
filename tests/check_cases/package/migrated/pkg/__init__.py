from .core import smooth
