"""Examples as plain data, for the API and the MCP tool."""

from __future__ import annotations

from tryouts.models import UnitExample


def example_as_dict(example: UnitExample) -> dict:
    """An example as the API and MCP show it: marked as written by the model."""
    return {
        "id": example.pk,
        "repository": example.repository.name,
        "path": example.path,
        "qualname": example.qualname,
        "status": example.status,
        "finished": example.is_finished,
        "written_by_model": example.model,
        "program": example.program,
        "output": example.stdout,
        "stderr_tail": example.stderr[-2000:],
        "check_passed": example.status == UnitExample.Status.PASSED,
        "error": example.error,
        "attempts": len(example.attempts),
        "sandbox": example.sandbox,
        "seconds": example.seconds,
    }
