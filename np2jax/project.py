"""The project pass: what one module's migration means for the modules that import it.

After every file has been migrated once, each result carries its ``ModuleLinks``
(analysis/links.py).  This pass resolves every imported call to the file that defines the
function (absolute and relative imports, modules named from their ``__init__.py`` packages,
re-exports through a package's ``__init__``) and derives ``ExternalFact``s:

* ``result``: NumPy code in another module writes into (or augments through a second reference)
  what a migrated function returns, also handed on by a function of a third module
  (``def passthru(n): return make(n)``) or held in a module-level name (``BUF = make(3)``, then
  ``BUF[0] = v`` in a function): the function stays NumPy code (NPJ202); also a function that stays NumPy code
  for its own reasons, so that the results it hands back (``return bits(n, w).copy()``) are followed in its module;
* ``mutation``: another module calls a function np2jax made return the arguments it wrote into
  (NPJ203): that caller still relies on the mutation, so the function keeps mutating (NPJ201);
* ``callee``: a migrated function calls a function another module leaves as NumPy code (which may
  write into the arrays it is handed): the caller stays NumPy code too (NPJ202);
* ``class``: a class derives from a class of another module and one of them has a method that stays
  NumPy code and may change ``self``'s arrays: they share ``self``, so the other stays NumPy too (NPJ202);
* ``result`` also when NumPy code hands such a result to a function of a third module that stays NumPy code
  (``M = make(n); bump(M)``: it may write into it);
* ``attribute``: NumPy code in another module writes an attribute of some object in place
  (``old.coords[m] = v``): the functions storing attributes of that name stay NumPy (NPJ202);
* ``state``: another module writes a module-level variable in place or rebinds it (``TABLE[0] = v`` after
  ``from pkg.a import TABLE``; ``a.TABLE = new``): functions reading it are not jitted (NPJ302);
* ``table``: a module reads another module's table of literals (its keys stay static under jit);
* ``exported``: another module imports a NumPy name from this one (``from pkg.a import cos``) or star-imports
  it: the NumPy imports it takes stay, though this module's own code no longer uses them;
* ``inexact``: this module imports a function whose migrated result XLA may compute one unit in the last place
  off (``return (x - lo) / (hi - lo)``): NPJ120 reports where this module rounds or compares it.

The runner then migrates the files whose facts grew again, with the facts in their ``Options``,
and repeats until nothing grows (facts only ever accumulate, so this ends).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from np2jax.analysis.links import INEXACT_SEPARATOR, ExternalFact, ModuleLinks

MAX_DEPTH = 5  # re-exports followed in a row


def module_name(path: Path) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` where ``pkg`` and ``pkg/sub`` hold an ``__init__.py``."""
    path = path.resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name:
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts))


@dataclass
class Module:
    name: str | None  # None: not importable (a notebook)
    display: str
    is_package: bool
    links: ModuleLinks


class Project:
    def __init__(self, modules: dict[int, Module]) -> None:
        self.modules = modules
        self._written: set[tuple[int, str]] | None = None  # (from the modules' sources: the same on every pass)
        self.by_name: dict[str, list[int]] = {}
        for index, module in modules.items():
            if module.name:
                self.by_name.setdefault(module.name, []).append(index)

    def facts(self) -> dict[int, set[ExternalFact]]:
        """Every fact the current links imply, per module index."""
        found: dict[int, set[ExternalFact]] = {}
        for index, module in self.modules.items():
            links = module.links
            for target, (writer, line) in links.writes.items():
                for producer, name in self._producers(index, target):
                    # (one left as NumPy code too: the results it hands back are written into, real29 L2)
                    if producer != index and name in self.modules[producer].links.defined:
                        found.setdefault(producer, set()).add(ExternalFact("result", name, self._who(index, writer, line)))
            for target, callers in links.calls.items():
                for producer, name in self.resolve(index, target):
                    if producer == index:
                        continue
                    other = self.modules[producer].links
                    if name in other.mutators and name not in other.unsupported:
                        caller, line = next(iter(callers.items()))
                        found.setdefault(producer, set()).add(ExternalFact("mutation", name, self._who(index, caller, line)))
                    stays = name in other.unsupported or any(n.startswith(name + ".") for n in other.unsupported)
                    if stays and any(caller in links.migrated for caller in callers):
                        where = self.modules[producer].display
                        found.setdefault(index, set()).add(ExternalFact("callee", target, where))
            self._class_facts(index, found)
            self._attribute_facts(index, found)
            self._handed_facts(index, found)
            self._table_facts(index, found)
            self._export_facts(index, found)
            self._inexact_facts(index, found)
            for target, (writer, line) in links.state_writes.items():
                for producer, name in self.resolve(index, target):
                    if producer != index and name in self.modules[producer].links.variables:
                        found.setdefault(producer, set()).add(ExternalFact("state", name, self._who(index, writer, line)))
        return found

    def _table_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """Tables of literals of other modules this one imports (``from pkg.consts import WHITE``: ``WHITE``;
        ``from pkg import consts``: ``consts.WHITE``), as it spells them: a key into one must stay a Python value
        under jit, and a row of one handed to jax.numpy is a tuple (state_writes.module_tables)."""
        written = self._written_variables()  # a table another module changes is state (" changed"), not a constant
        for local, target in self.modules[index].links.imports.items():
            for producer, name in self.resolve(index, target):
                kind = self.modules[producer].links.tables.get(name) if producer != index else None
                if kind is not None:
                    kind += " changed" if (producer, name) in written else ""
                    found.setdefault(index, set()).add(ExternalFact("table", local, kind))
            absolute = self._absolute(index, target)
            for producer in self.by_name.get(absolute, []) if absolute else []:  # `import pkg.consts as consts`
                if producer != index:
                    for name, kind in self.modules[producer].links.tables.items():
                        kind += " changed" if (producer, name) in written else ""
                        found.setdefault(index, set()).add(ExternalFact("table", f"{local}.{name}", kind))

    def _inexact_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """Functions this module imports by name (``from .norm import minmax``) whose migrated results are inexact
        under XLA: ``inexact`` ``minmax``, with NPJ120's example and advice, reported where this module rounds or
        compares their results (real25: ``minmax(x) == 1.0`` missed the maximum)."""
        for local, target in self.modules[index].links.imports.items():
            for producer, name in self.resolve(index, target):
                source = self.modules[producer].links.inexact_returns.get(name) if producer != index else None
                if source is not None:
                    found.setdefault(index, set()).add(ExternalFact("inexact", local, INEXACT_SEPARATOR.join(source)))
            absolute = self._absolute(index, target)
            for producer in self.by_name.get(absolute, []) if absolute else []:  # `from . import norm`: `norm.minmax`
                if producer != index:
                    for name, source in self.modules[producer].links.inexact_returns.items():
                        found.setdefault(index, set()).add(
                            ExternalFact("inexact", f"{local}.{name}", INEXACT_SEPARATOR.join(source)))

    def _export_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """NumPy names other modules take from a module (``from pkg.a import cos`` where ``pkg.a`` has
        ``from numpy import cos``; ``from .a import *``) must stay imported there though its own code no longer uses
        them: ``exported`` ``cos`` (``*``: every NumPy name the module imports)."""
        links = self.modules[index].links
        who = self.modules[index].display
        for star in links.stars:
            absolute = (self._absolute(index, star) or "").rstrip(".")
            for producer in self._named(absolute.split(".")) if absolute else []:
                if producer != index and self.modules[producer].links.numpy_names:
                    found.setdefault(producer, set()).add(ExternalFact("exported", "*", who))
        for target in {*links.imports.values(), *links.calls}:
            absolute = self._absolute(index, target)
            if not absolute or "." not in absolute:
                continue
            where, name = absolute.rsplit(".", 1)
            for producer in self.by_name.get(where, []):
                if producer != index and name in self.modules[producer].links.numpy_names:
                    found.setdefault(producer, set()).add(ExternalFact("exported", name, who))

    def _written_variables(self) -> set[tuple[int, str]]:
        """(module, variable) pairs some other module writes in place or rebinds (``links.state_writes``)."""
        if self._written is None:
            self._written = {
                (producer, name) for index, module in self.modules.items() for target in module.links.state_writes
                for producer, name in self.resolve(index, target) if producer != index}
        return self._written

    def _handed_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """NumPy code here hands an imported function's result to a function of a third module that stays NumPy
        code and writes into what its parameters hold (``M = make(n); bump(M)``, ``bump`` writing into ``M``): the
        producer stays NumPy, as for a write here.  (A NumPy function that only reads what it is handed,
        ``mat2axangle(axangle2mat(...))``, keeps nothing NumPy.)"""
        for target, callees in self.modules[index].links.handed.items():
            for callee, (caller, line) in callees.items():
                if not any(name in self.modules[where].links.param_writers for where, name in self.resolve(index, callee)):
                    continue
                for producer, name in self._producers(index, target):
                    # (one left as NumPy code too: the results it hands back are written into, real29 L2)
                    if producer != index and name in self.modules[producer].links.defined:
                        who = self._who(index, caller, line)
                        found.setdefault(producer, set()).add(ExternalFact("result", name, who))

    def _attribute_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """NumPy code in another module writes an attribute in place (``old.coords[m] = v``): what this module's
        functions store in attributes of that name stays NumPy (matched by name: objects travel anywhere)."""
        stores = self.modules[index].links.attribute_stores
        for other, module in self.modules.items():
            if other == index:
                continue
            for name in stores & module.links.attribute_writes.keys():
                writer, line = module.links.attribute_writes[name]
                found.setdefault(index, set()).add(ExternalFact("attribute", name, self._who(other, writer, line)))

    def _producers(self, index: int, target: str) -> list[tuple[int, str]]:
        """The functions whose results a call of ``target`` in module ``index`` may return: the one it names, and
        those that one hands back from other modules (``def passthru(n): return make(n)``), and theirs."""
        found: list[tuple[int, str]] = []
        pending = [(index, target)]
        while pending:
            where, spelled = pending.pop()
            for producer, name in self.resolve(where, spelled):
                name = self._constructor(producer, name)
                if (producer, name) not in found:
                    found.append((producer, name))
                    pending.extend((producer, other) for other in self.modules[producer].links.returns.get(name, ()))
        return found

    def _class_facts(self, index: int, found: dict[int, set[ExternalFact]]) -> None:
        """A class and its base class in another module share ``self``: one stays NumPy code, the other too."""
        links = self.modules[index].links
        for name, targets in links.bases.items():
            for target in targets:
                for producer, base in self.resolve(index, target):
                    other = self.modules[producer].links
                    if producer == index:
                        continue
                    if name in links.numpy_classes and any(n.startswith(base + ".") for n in other.migrated):
                        who = f"`{name}` ({self.modules[index].display}), a subclass"
                        found.setdefault(producer, set()).add(ExternalFact("class", base, who))
                    if base in other.numpy_classes and any(n.startswith(name + ".") for n in links.migrated):
                        who = f"`{base}` ({self.modules[producer].display}), its base class"
                        found.setdefault(index, set()).add(ExternalFact("class", name, who))

    def resolve(self, index: int, target: str, depth: int = 0) -> list[tuple[int, str]]:
        """The modules (indices) and qualnames an import target seen from module ``index`` names."""
        target = self._absolute(index, target)
        if target is None or depth > MAX_DEPTH:
            return []
        parts = target.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            producers = self._named(parts[:cut])
            if not producers:
                continue
            rest = ".".join(parts[cut:])
            found = []
            for producer in producers:
                links = self.modules[producer].links
                head = parts[cut]
                if rest in links.defined or rest in links.variables or any(name.startswith(rest + ".") for name in links.defined):
                    found.append((producer, rest))
                elif head in links.imports:  # re-exported: `from .core import make` in the package's __init__
                    found.extend(self.resolve(producer, ".".join([links.imports[head], *parts[cut + 1:]]), depth + 1))
                elif not head.startswith("_"):  # or through `from .core import *`
                    for star in links.stars:
                        found.extend(self.resolve(producer, f"{star}.{rest}" if not star.endswith(".") else star + rest, depth + 1))
            return found
        return []

    def _named(self, parts: list[str]) -> list[int]:
        """Modules of that dotted name; failing that, of a shorter one (a folder without ``__init__.py``
        above them: ``import pkg.core`` where ``pkg`` is a namespace package)."""
        for start in range(len(parts)):
            found = self.by_name.get(".".join(parts[start:]))
            if found:
                return found
        return []

    def _absolute(self, index: int, target: str) -> str | None:
        if not target.startswith("."):
            return target
        module = self.modules[index]
        if module.name is None:
            return None
        level = len(target) - len(target.lstrip("."))
        package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
        if level - 1 > len(package):
            return None
        package = package[: len(package) - (level - 1)]
        return ".".join([*package, target[level:]])

    def _constructor(self, producer: int, name: str) -> str:
        """For a class, its ``__init__`` (which sets up what an object of it holds)."""
        links = self.modules[producer].links
        return name if name in links.defined else f"{name}.__init__"

    def _who(self, index: int, qualname: str, line: int) -> str:
        display = self.modules[index].display
        where = f"{display}:{line}" if line else display
        return f"module-level code ({where})" if qualname == "<module>" else f"`{qualname}` ({where})"
