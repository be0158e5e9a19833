"""
Runs (or lists) the unittest tests under a folder and writes one JSON object per test id: ``status``
(passed, failed, skipped) and its ``output`` (traceback or skip reason). Used by the vitest tests that
run this client's tests (test/support/python-tests.ts), so each Python test counts as one there.

    python3 tests/run_json.py list tests/unit
    python3 tests/run_json.py run tests/unit results.json
"""

from __future__ import annotations

import json
import sys
import unittest
from pathlib import Path
from typing import Dict, Iterator

ROOT = Path(__file__).resolve().parents[1]


def tests_of(suite: unittest.TestSuite) -> Iterator[unittest.TestCase]:
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from tests_of(test)
        else:
            yield test


class JsonResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.outcomes: Dict[str, Dict[str, str]] = {}

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self.outcomes[test.id()] = {"status": "passed", "output": ""}

    def addFailure(self, test, err) -> None:  # type: ignore[no-untyped-def]
        super().addFailure(test, err)
        self.outcomes[test.id()] = {"status": "failed", "output": self.failures[-1][1]}

    def addError(self, test, err) -> None:  # type: ignore[no-untyped-def]
        super().addError(test, err)
        self.outcomes[test.id()] = {"status": "failed", "output": self.errors[-1][1]}

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.outcomes[test.id()] = {"status": "skipped", "output": reason}


def main(argv: list) -> int:
    command, folder = argv[0], argv[1]
    suite = unittest.defaultTestLoader.discover(str(ROOT / folder), top_level_dir=str(ROOT))
    if command == "list":
        print(json.dumps([t.id() for t in tests_of(suite)]))
        return 0
    runner = unittest.TextTestRunner(resultclass=JsonResult, verbosity=2, stream=sys.stderr)
    result = runner.run(suite)
    Path(argv[2]).write_text(json.dumps(result.outcomes))  # type: ignore[attr-defined]
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
