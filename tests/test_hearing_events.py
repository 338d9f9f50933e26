"""Hearing events survive a round trip through JSON, every type of them."""

from __future__ import annotations

import json

import pytest

from assistant.engine import Command
from assistant.hearing.events import Event, NotRecognized, Partial, Transcript, event_from_dict


@pytest.mark.parametrize("event", [
    Partial("explore one"),
    Partial("pass", Command("pass")),
    Transcript("explore one zero zero", 0.93, "explore one zero zero",
               Command("explore", {"d1": "1", "d2": "0", "d3": "0"})),
    Transcript("shields zero and two", 0.5, "shields zero and two and", Command("shields", {"b1": "0", "b2": "2"}),
               snapped=True),
    Transcript("raw words", 0.25),
    Transcript("teleport", 0.4, doubt="it did not sound like 'teleport'"),
    NotRecognized("[unk] [unk]", "words outside the commands", 0.1),
    NotRecognized("explore one zero", "could mean more than one command", 0.8,
                  ("explore one zero zero", "explore one zero one")),
])
def test_round_trip(event: Event) -> None:
    assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event


def test_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="not a hearing event"):
        event_from_dict({"type": "audio-chunk"})
