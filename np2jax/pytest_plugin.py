"""pytest plugin: ``pytest --np2jax-check ORIGINAL MIGRATED`` makes every function a test item.

Items are listed from the syntax trees (no user code runs at collection), so every
pytest-xdist worker collects the same items; each process keeps one warm worker lane
(``np2jax.check.runner.Checker``) for the items it runs. With the option, pytest's
usual test collection is switched off: the run is the check.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("np2jax", "np2jax differential check")
    group.addoption("--np2jax-check", nargs=2, metavar=("ORIGINAL", "MIGRATED"), default=None,
                    help="check every function of ORIGINAL against MIGRATED, one test item per function")
    group.addoption("--np2jax-examples", metavar="DIR", default=None, help="EXAMPLES files (as np2jax check --examples)")
    group.addoption("--np2jax-x64", action="store_true", help="enable 64-bit JAX (as np2jax check --x64)")
    group.addoption("--np2jax-timeout", type=float, default=None, metavar="SECONDS", help="per function and side")


def _paths(config: pytest.Config) -> tuple[Path, Path] | None:
    value = config.getoption("np2jax_check", default=None)
    return None if value is None else (Path(value[0]), Path(value[1]))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if _paths(config) is not None else None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    paths = _paths(config)
    if paths is None:
        return
    from np2jax.check.discover import pair_files
    from np2jax.files import UsageError

    examples = config.getoption("np2jax_examples")
    try:
        pairs = pair_files(paths[0], paths[1], Path(examples) if examples else None)
    except UsageError as error:
        raise pytest.UsageError(f"--np2jax-check: {error}") from None
    collector = CheckCollector.from_parent(session, name="np2jax-check")
    for pair in pairs:
        if pair.error is not None:
            items.append(CheckItem.from_parent(collector, name=f"{pair.display}::<module>", pair=pair, target=None))
        for target in pair.targets:
            items.append(CheckItem.from_parent(collector, name=f"{pair.display}::{target.qualname}", pair=pair, target=target))


class CheckCollector(pytest.Collector):
    def collect(self):
        return []


class CheckFailure(Exception):
    """A mismatch, or the migrated function failing where the original ran."""


class CheckItem(pytest.Item):
    def __init__(self, *, pair, target, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pair, self.target = pair, target

    def runtest(self) -> None:
        if self.target is None:
            if self.pair.error.startswith("migrated:") or self.pair.error.startswith("no migrated file"):
                raise CheckFailure(self.pair.error)
            pytest.skip(self.pair.error)
        record = _checker(self.config).check_target(self.pair, self.target)
        self.user_properties.append(("np2jax_check", record.to_json()))
        if record.failed:
            raise CheckFailure(f"{record.status}: {record.message}")
        if record.status != "equivalent":
            pytest.skip(f"{record.status}: {record.message}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.pair.original, self.target.line if self.target and self.target.line else None, self.name


_CHECKER_KEY = pytest.StashKey[object]()


def _checker(config: pytest.Config):
    checker = config.stash.get(_CHECKER_KEY, None)
    if checker is None:
        from np2jax.check.limits import DEFAULT_TIMEOUT_S
        from np2jax.check.runner import Checker

        timeout = config.getoption("np2jax_timeout") or DEFAULT_TIMEOUT_S
        checker = Checker(x64=config.getoption("np2jax_x64"), timeout=timeout, jobs=1).__enter__()
        config.stash[_CHECKER_KEY] = checker
    return checker


def pytest_unconfigure(config: pytest.Config) -> None:
    checker = config.stash.get(_CHECKER_KEY, None)
    if checker is not None:
        checker.close()
