"""The travel world's data and tools, called directly on a fresh in-memory database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.demo import tools as t
from assay.demo.data import open_database
from assay.demo.tools import ToolBox, ToolContext, ToolError


@pytest.fixture
def ctx() -> Iterator[ToolContext]:
    conn = open_database()
    t.open_session(conn, "s1")
    yield ToolContext(conn, "s1")
    conn.close()


def test_the_database_is_the_same_every_time() -> None:
    first, second = open_database(), open_database()
    for table in ("flights", "hotels", "car_rentals", "trip_recommendations", "tickets"):
        query = f"SELECT * FROM {table} ORDER BY 1"
        assert [tuple(r) for r in first.execute(query)] == [tuple(r) for r in second.execute(query)]
    assert first.execute("SELECT count(*) FROM flights").fetchone()[0] == 8 * 20


def test_the_passengers_flights(ctx: ToolContext) -> None:
    rows = t.fetch_user_flight_information(ctx)
    assert [
        (r["flight_id"], r["flight_no"], r["scheduled_departure"], r["seat_no"]) for r in rows
    ] == [
        (101, "LX0112", "2025-06-12T12:09", "17B"),
        (804, "LX0113", "2025-06-19T16:25", "21D"),
    ]
    assert rows[0]["ticket_no"] == "7240005432906569"
    assert (rows[0]["departure_airport"], rows[0]["arrival_airport"]) == ("CDG", "BSL")
    assert rows[0]["scheduled_arrival"] == "2025-06-12T13:14"


def test_basel_hotels_in_id_order_with_prices(ctx: ToolContext) -> None:
    rows = t.search_hotels(ctx, location="basel")
    assert [(r["id"], r["name"], r["price_per_night"]) for r in rows] == [
        (1, "Hilton Basel", 310),
        (3, "Hyatt Regency Basel", 245),
        (8, "Holiday Inn Basel", 129),
    ]
    assert [r["id"] for r in t.search_hotels(ctx, location="Basel", price_tier="Luxury")] == [1]


def test_search_flights_defaults_to_the_first_day(ctx: ToolContext) -> None:
    rows = t.search_flights(ctx, departure_airport="CDG", arrival_airport="BSL")
    assert [(r["flight_id"], r["flight_no"]) for r in rows] == [(101, "LX0112"), (102, "LX0114")]
    later = t.search_flights(ctx, departure_airport="CDG", arrival_airport="BSL", date="2025-06-13")
    assert [r["flight_id"] for r in later] == [201, 202]
    assert t.search_flights(ctx, departure_airport="CDG", date="2025-07-01") == []


def test_trip_recommendations_filter_on_any_keyword(ctx: ToolContext) -> None:
    names = [r["name"] for r in t.search_trip_recommendations(ctx, location="Basel")]
    assert names == ["Basel Minster", "Kunstmuseum Basel", "Fondation Beyeler", "Rhine ferry ride"]
    museums = t.search_trip_recommendations(ctx, location="Basel", keywords="museum")
    assert [r["id"] for r in museums] == [2, 9]
    assert [r["id"] for r in t.search_trip_recommendations(ctx, "Basel", "boat church")] == [1, 10]


def test_change_a_ticket_with_a_window_seat(ctx: ToolContext) -> None:
    moved = t.update_ticket_to_new_flight(
        ctx, ticket_no="7240005432906569", new_flight_id=102, seat_preference="window"
    )
    assert (moved["flight_no"], moved["seat_no"]) == ("LX0114", "12A")
    assert t.fetch_user_flight_information(ctx)[0]["flight_id"] == 102


@pytest.mark.parametrize(
    ("flight_id", "message"),
    [
        (105, "flight 105 does not fly CDG→BSL"),
        (101, "ticket 7240005432906569 is already on flight 101"),
        (9999, "no flight with ID 9999"),
    ],
)
def test_a_ticket_change_that_is_refused(ctx: ToolContext, flight_id: int, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        t.update_ticket_to_new_flight(ctx, ticket_no="7240005432906569", new_flight_id=flight_id)


def test_sessions_have_their_own_tickets_and_bookings(ctx: ToolContext) -> None:
    t.open_session(ctx.conn, "s2")
    other = ToolContext(ctx.conn, "s2")
    t.cancel_ticket(ctx, ticket_no="7240005432906569")
    t.book_hotel(ctx, hotel_id=8)
    assert [r["flight_id"] for r in t.fetch_user_flight_information(ctx)] == [804]
    assert [r["flight_id"] for r in t.fetch_user_flight_information(other)] == [101, 804]
    assert t.book_hotel(other, hotel_id=8)["name"] == "Holiday Inn Basel"
    with pytest.raises(ToolError, match="Holiday Inn Basel is already booked"):
        t.book_hotel(ctx, hotel_id=8)
    t.close_session(ctx.conn, "s2")
    assert ctx.conn.execute("SELECT count(*) FROM bookings").fetchone()[0] == 1


def test_cancel_hotel_needs_a_booking(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="hotel 3 is not booked"):
        t.cancel_hotel(ctx, hotel_id=3)
    t.book_hotel(ctx, hotel_id=3)
    assert t.cancel_hotel(ctx, hotel_id=3)["booked"] is False


def test_toolbox_records_calls_and_failures(ctx: ToolContext) -> None:
    box = ToolBox(ctx)
    rows = box.call(t.search_car_rentals, location="Geneva")
    with pytest.raises(ToolError):
        box.call(t.book_car_rental, rental_id=42)
    first, failed = box.invocations
    assert first["name"] == "search_car_rentals"
    assert first["args"] == {"location": "Geneva"}
    assert first["result"] == rows
    assert [r["name"] for r in rows] == ["Budget Geneva", "Europcar Geneva"]
    assert first["error"] is None
    assert type(first["duration_ms"]) is int  # whole milliseconds, as the contract has them
    assert first["duration_ms"] >= 0
    assert failed["name"] == "book_car_rental"
    assert failed["args"] == {"rental_id": 42}
    assert (failed["result"], failed["error"]) == (None, "no car with ID 42")


def test_lookup_policy(ctx: ToolContext) -> None:
    assert t.lookup_policy(ctx, topic="pets")["text"].startswith("Cats and small dogs")
    with pytest.raises(ToolError, match="no policy on 'visas'"):
        t.lookup_policy(ctx, topic="visas")
