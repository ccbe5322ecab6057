"""Run the check: worker lanes over files, one function at a time, and the verdicts.

A lane is a pair of worker processes (original side without JAX, migrated side
with it) that stay alive across functions and files; within a lane, the
original side already works on the next function while the migrated side runs
the current one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from np2jax.check.compare import compare
from np2jax.check.limits import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S
from np2jax.check.discover import FilePair, Target, pair_files
from np2jax.check.report import CheckReport, FunctionCheck
from np2jax.check.workers import Worker, WorkerFailure

MIN_INPUTS = 3


class Lane:
    def __init__(self, workdir: Path, *, x64: bool, memory_mb: int, jax_cache: str | None) -> None:
        options = dict(x64=x64, memory_mb=memory_mb, jax_cache=jax_cache)
        self.original = Worker("original", workdir / "original", **options)
        self.migrated = Worker("migrated", workdir / "migrated", **options)

    def start(self) -> None:
        self.original.start()
        self.migrated.start()

    def stop(self) -> None:
        self.original.stop()
        self.migrated.stop()


class Checker:
    """Checks functions one by one; keeps its worker lanes warm. Use as a context manager."""

    def __init__(self, *, x64: bool = False, timeout: float = DEFAULT_TIMEOUT_S, jobs: int = 1,
                 memory_mb: int = DEFAULT_MEMORY_MB, jax_cache: str | None = None) -> None:
        self.x64, self.timeout = x64, timeout
        self.workdir = Path(tempfile.mkdtemp(prefix="np2jax-check-"))
        self.lanes = [Lane(self.workdir / f"lane{i}", x64=x64, memory_mb=memory_mb, jax_cache=jax_cache)
                      for i in range(max(1, jobs))]
        self._free = list(self.lanes)
        self._lock = threading.Lock()

    def __enter__(self) -> Checker:
        try:
            for lane in self.lanes:
                lane.start()
        except BaseException:  # Ctrl-C or SIGTERM while workers start: __exit__ will not run
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for lane in self.lanes:
            lane.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    @property
    def device(self) -> str | None:
        return next((lane.migrated.device for lane in self.lanes if lane.migrated.device), None)

    def _take_lane(self) -> Lane:
        with self._lock:
            return self._free.pop()

    def _give_lane(self, lane: Lane) -> None:
        with self._lock:
            self._free.append(lane)

    def check_file(self, pair: FilePair, on_result: Callable[[FunctionCheck], None] | None = None,
                   only: Callable[[FilePair, Target], bool] | None = None) -> list[FunctionCheck]:
        records = []
        for name, line in pair.missing:
            cell = None
            if pair.origin is not None and line is not None:
                from np2jax.notebook import locate

                cell, line = locate(pair.origin, line)
            records.append(FunctionCheck(pair.display, name, "skipped", message="not in the migrated file",
                                         line=line, cell=cell))
        if pair.error is not None:
            side_ok = pair.error.startswith("migrated:")
            records.append(FunctionCheck(pair.display, "<module>", "error", message=pair.error, original_ran=side_ok))
        targets = [t for t in pair.targets if only is None or only(pair, t)]
        lane = self._take_lane()
        try:
            records.extend(self._check_targets(lane, pair, targets, on_result))
        finally:
            self._give_lane(lane)
        return records

    def check_target(self, pair: FilePair, target: Target) -> FunctionCheck:
        """One function (the pytest plugin's test item)."""
        lane = self._take_lane()
        try:
            return self._check_targets(lane, pair, [target], None)[0]
        finally:
            self._give_lane(lane)

    def _check_targets(self, lane: Lane, pair: FilePair, targets: list[Target], on_result) -> list[FunctionCheck]:
        records = []
        started = time.monotonic()
        submitted = self._submit_original(lane, pair, targets[0]) if targets else None
        for index, target in enumerate(targets):
            original = self._collect(lane.original, submitted)
            if index + 1 < len(targets):
                submitted = self._submit_original(lane, pair, targets[index + 1])
            record = self._finish(lane, pair, target, original)
            record.seconds = time.monotonic() - started
            started = time.monotonic()
            records.append(record)
            if on_result is not None:
                on_result(record)
        return records

    def _submit_original(self, lane: Lane, pair: FilePair, target: Target):
        message = {"op": "original", "spec": pair.original_spec, "target": target, "x64": self.x64,
                   "budget": self.timeout, "min_inputs": MIN_INPUTS,
                   "examples": None if pair.examples is None else str(pair.examples.resolve())}
        try:
            lane.original.submit(message, self.timeout)
        except WorkerFailure as failure:
            return failure
        return None

    @staticmethod
    def _collect(worker: Worker, submit_failure) -> dict | WorkerFailure:
        if submit_failure is not None:
            return submit_failure
        try:
            return worker.collect()
        except WorkerFailure as failure:
            return failure

    def _finish(self, lane: Lane, pair: FilePair, target: Target, original: dict | WorkerFailure) -> FunctionCheck:
        record = FunctionCheck(pair.display, target.qualname, "error", line=target.line, unchanged=target.unchanged,
                               cell=target.cell, jax_callers=target.jax_callers)
        if isinstance(original, WorkerFailure):
            record.message = f"the original {original}"  # crashed (SIGSEGV) / timed out ... / exited ...
            return record
        record.candidates_tried = original.get("candidates", 0)
        record.original_ran = original.get("original_ran", False)
        if original["status"] != "ok":
            record.status, record.message = original["status"], original["message"]
            return record
        inputs = original["inputs"]
        record.inputs_accepted = len(inputs)
        record.input_sources = [entry["source"] for entry in inputs]
        message = {"op": "migrated", "spec": pair.migrated_spec, "target": target, "calls": original["calls"],
                   "rules": [(entry["rule"], entry["positions"]) for entry in inputs],
                   "numpy_inputs": target.unchanged and not target.jax_callers, "budget": self.timeout,
                   "examples": None if pair.examples is None else str(pair.examples.resolve())}
        try:
            migrated = lane.migrated.request(message, self.timeout)
        except WorkerFailure as failure:
            record.message = f"the migrated function {failure}"
            return record
        if migrated["status"] != "ok":
            record.message = migrated["message"]
            return record
        record.jitted = migrated["jitted"]
        record = self._verdict(record, inputs, migrated["results"], target.narrow_floats)
        if record.status == "equivalent" and target.rewritten_callees:
            names = ", ".join(target.rewritten_callees)
            record.message = record.message.replace(
                "; unchanged by the migration", f"; its own code unchanged by the migration, but it calls the migrated {names}")
        return record

    def _verdict(self, record: FunctionCheck, inputs: list[dict], results: list, narrow: bool) -> FunctionCheck:
        first_error = None
        for number, (entry, (state, value)) in enumerate(zip(inputs, results), start=1):
            record.inputs_tried += 1
            if state != "ok":
                first_error = first_error or f"input {number} {entry['description']}: the migrated function failed: {value}"
                continue
            nan = entry.get("nan", False)
            outcome = compare(entry["expected"], value, entry["perturbed"], x64=self.x64, narrow=narrow,
                              unit_scale=entry.get("source") == "special" and not nan,
                              nan_input=nan and entry.get("nan_ties", True))
            for attribute, found in (("max_abs_err", outcome.max_abs), ("max_rel_err", outcome.max_rel)):
                if found is not None:
                    current = getattr(record, attribute)
                    setattr(record, attribute, found if current is None else max(current, found))
            if not outcome.ok and record.status != "mismatch":
                record.status = "mismatch"
                record.first_diff_index = list(outcome.index) if outcome.index is not None else None
                record.first_diff_input = number
                hint = f" (the original updates {entry['mutated']} in place)" if entry["mutated"] else ""
                record.message = f"input {number} {entry['description']}: {outcome.message}{hint}"
        if len(results) < len(inputs) and first_error is None:
            first_error = "the migrated side stopped early"
        if record.status == "mismatch":
            return record
        if first_error is not None:
            record.message = first_error
            return record
        record.status = "equivalent"
        record.message = self._equivalent_note(record, inputs)
        return record

    @staticmethod
    def _equivalent_note(record: FunctionCheck, inputs: list[dict]) -> str:
        sources: dict[str, int] = {}
        for entry in inputs:
            sources[entry["source"]] = sources.get(entry["source"], 0) + 1
        text = ", ".join(f"{count} {_plural(source, count)}" for source, count in sources.items())
        mutated = sorted({entry["mutated"] for entry in inputs if entry["mutated"]})
        if mutated:
            text += f"; compared the in-place update of {', '.join(mutated)}"
        if all(entry["rule"] == "return" and entry["expected"] is None for entry in inputs):
            text += "; it returns None and updates no argument: compared only that the migrated one runs and does too"
        if any(entry["rule"] == "state" for entry in inputs):
            text += "; compared the instance's state"
        if record.unchanged:
            text += ("; unchanged by the migration, run on NumPy inputs and (as its rewritten callers pass) JAX arrays"
                     if record.jax_callers else "; unchanged by the migration, run on NumPy inputs")
        return text


def default_jobs(files: int) -> int:
    return max(1, min(files, os.cpu_count() or 1, 4))


def run_check(original: Path, migrated: Path, *, x64: bool = False, examples: Path | None = None,
              timeout: float = DEFAULT_TIMEOUT_S, jobs: int | None = None, memory_mb: int = DEFAULT_MEMORY_MB,
              jax_cache: str | None = None, on_result: Callable[[FunctionCheck], None] | None = None) -> CheckReport:
    """Check every function of ORIGINAL against MIGRATED (two files or two directories).

    Raises ``np2jax.files.UsageError`` for bad arguments (missing paths, a file paired
    with a directory); everything that goes wrong in user code ends up in the report.
    """
    started = time.monotonic()
    pairs = pair_files(Path(original), Path(migrated), None if examples is None else Path(examples))
    report = CheckReport(x64=x64)
    for pair in pairs:
        if pair.migrated is not None and pair.error and pair.error.startswith("no migrated file"):
            report.notes.append(f"{pair.display}: {pair.error}")
    pairs = [p for p in pairs if not (p.error or "").startswith("no migrated file")]
    lanes = jobs if jobs is not None else default_jobs(len(pairs))
    with Checker(x64=x64, timeout=timeout, jobs=min(lanes, max(1, len(pairs))), memory_mb=memory_mb,
                 jax_cache=jax_cache) as checker:
        if len(checker.lanes) == 1:
            per_file = [checker.check_file(pair, on_result) for pair in pairs]
        else:
            with ThreadPoolExecutor(max_workers=len(checker.lanes)) as pool:
                per_file = list(pool.map(lambda pair: checker.check_file(pair, on_result), _largest_first(pairs)))
            order = {id(pair): index for index, pair in enumerate(_largest_first(pairs))}
            per_file = [per_file[order[id(pair)]] for pair in pairs]
        report.device = checker.device
    report.functions = [record for records in per_file for record in records]
    report.seconds = time.monotonic() - started
    return report


def _largest_first(pairs: list[FilePair]) -> list[FilePair]:
    return sorted(pairs, key=lambda p: -len(p.targets))


def _plural(source: str, count: int) -> str:
    """'1 example', '2 examples', '2 hypothesis inputs' (not 'hypothesiss')."""
    if count == 1:
        return source
    return f"{source} inputs" if source.endswith("s") else f"{source}s"
