"""The keyword/regex intent parser."""

from __future__ import annotations

import pytest

from assay.demo.intents import Intent, parse


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("What time is my upcoming flight?", Intent.FLIGHT_INFO),
        ("When is my return flight?", Intent.FLIGHT_INFO),
        ("Flights from Paris to Basel on June 13?", Intent.SEARCH_FLIGHTS),
        ("Move me to the later flight.", Intent.CHANGE_FLIGHT),
        ("Change my flight to June 14", Intent.CHANGE_FLIGHT),
        ("Cancel my flight", Intent.CANCEL),
        ("I like a cheap hotel for my 7 day stay.", Intent.SEARCH_HOTELS),
        ("Book the cheapest hotel.", Intent.BOOK),
        ("Book the Kunstmuseum", Intent.BOOK),
        ("I need a rental car in Zurich.", Intent.SEARCH_CARS),
        ("Any museums in Basel?", Intent.SEARCH_EXCURSIONS),
        ("What can I do in Geneva?", Intent.SEARCH_EXCURSIONS),
        ("Can I bring a second checked bag?", Intent.POLICY),
        ("What's the cancellation policy?", Intent.POLICY),
        ("Is there a fee for changing my flight?", Intent.POLICY),
        ("I prefer a window seat.", Intent.PREFERENCE),
        ("Hello there", Intent.GREETING),
        ("Thanks a lot", Intent.THANKS),
        ("What is the meaning of life?", Intent.FALLBACK),
    ],
)
def test_intent(query: str, intent: Intent) -> None:
    assert parse(query).intent is intent


def test_cities_in_order_of_mention_with_aliases_and_codes() -> None:
    p = parse("Are there flights to Zürich from Genève?")
    assert p.cities == ("Zurich", "Geneva")
    assert p.from_city == "Geneva"
    assert parse("anything from CDG to BSL").cities == ("Paris", "Basel")
    assert parse("any bsl flights").cities == ()  # codes count only in capitals


@pytest.mark.parametrize(
    ("query", "day"),
    [
        ("on June 13", "2025-06-13"),
        ("on the 14th of June", "2025-06-14"),
        ("on 2025-06-15", "2025-06-15"),
        ("tomorrow", "2025-06-12"),
        ("on June 31", None),
        ("Book the Marriott 2", None),
        ("May I bring my cat?", None),
    ],
)
def test_dates(query: str, day: str | None) -> None:
    assert parse(query).date == day


def test_details() -> None:
    p = parse("Switch me to lx 114 the next day")
    assert (p.flight_no, p.next_day, p.kind) == ("LX0114", True, None)
    assert parse("book hotel 8").item_id == 8
    assert parse("Book ID: 12").item_id == 12
    assert parse("I like a cheap hotel for my 7 day stay.").item_id is None
    assert parse("Any art museums or boat trips?").keywords == "art museum boat"
    assert parse("luxury hotels in Paris").price_tier == "luxury"
    assert parse("budget-friendly hotels").price_tier is None


@pytest.mark.parametrize(
    ("query", "prefs"),
    [
        ("I like a cheap hotel for my 7 day stay.", (("hotel", "cheap"),)),
        ("I prefer luxury hotels", (("hotel", "luxury"),)),
        ("I prefer a window seat.", (("seat", "window"),)),
        ("An aisle seat, please", (("seat", "aisle"),)),
        ("Show me cheap hotels in Basel.", ()),  # a one-off request, not a preference
    ],
)
def test_preferences(query: str, prefs: tuple[tuple[str, str], ...]) -> None:
    assert parse(query).prefs == prefs
