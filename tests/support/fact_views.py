"""A fact as the reply context shows it, for the pure tests of the assembly (tests/recall/): about Caroline,
reported by one member `day` days after D."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.models import FactView

D = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)


def fact(uuid: str, text: str, reporter: str = "Caroline", day: int = 0) -> FactView:
    return FactView(
        uuid=uuid,
        text=text,
        category="other",
        importance=5,
        confidence=0.9,
        valid_at=D,
        about=("Caroline",),
        about_ids=("caroline",),
        reporters=((reporter.lower(), reporter, D + timedelta(days=day)),),
    )
