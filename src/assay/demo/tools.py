"""The travel agent's tools: plain functions over the demo database, and the recorder that
turns each call into a tool invocation ``{"name", "args", "result", "duration_ms", "error"}``.

Every tool takes a ``ToolContext`` (the connection and the conversation's session id)
and keyword arguments; the recorded ``args`` are exactly the keyword arguments passed.
A tool that cannot do what was asked raises ``ToolError``; the invocation then carries
the message in ``error`` and ``result`` is ``None``.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from assay._millis import elapsed_ms
from assay.demo.data import FIRST_FLIGHT_DAY, PASSENGER_ID, POLICIES

Row = dict[str, Any]
T = TypeVar("T")

# The seat a flight change assigns for a stated seat preference.
_SEATS = {"window": "12A", "aisle": "12C"}


class ToolError(Exception):
    """A tool refused: the message says why, in words the agent can repeat to the user."""


@dataclass(frozen=True)
class ToolContext:
    conn: sqlite3.Connection
    session_id: str


def open_session(conn: sqlite3.Connection, session_id: str) -> None:
    """Give a new conversation its own copy of the passenger's tickets."""
    conn.execute(
        "INSERT INTO session_tickets (session_id, ticket_no, flight_id, seat_no) "
        "SELECT ?, ticket_no, flight_id, seat_no FROM tickets WHERE passenger_id = ?",
        (session_id, PASSENGER_ID),
    )


def close_session(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute("DELETE FROM session_tickets WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM bookings WHERE session_id = ?", (session_id,))


def _rows(ctx: ToolContext, sql: str, params: tuple[Any, ...] = ()) -> list[Row]:
    return [dict(row) for row in ctx.conn.execute(sql, params)]


def _one(ctx: ToolContext, sql: str, params: tuple[Any, ...], missing: str) -> Row:
    rows = _rows(ctx, sql, params)
    if not rows:
        raise ToolError(missing)
    return rows[0]


# --- flights -------------------------------------------------------------------------------

_TICKET_SQL = (
    "SELECT t.ticket_no, k.book_ref, f.flight_id, f.flight_no, f.departure_airport, "
    "f.arrival_airport, f.scheduled_departure, f.scheduled_arrival, t.seat_no, "
    "k.fare_conditions FROM session_tickets t JOIN tickets k USING (ticket_no) "
    "JOIN flights f ON f.flight_id = t.flight_id "
    "WHERE t.session_id = ? AND t.status = 'active'"
)


def fetch_user_flight_information(ctx: ToolContext) -> list[Row]:
    """The passenger's active tickets with their flights, earliest departure first."""
    return _rows(ctx, _TICKET_SQL + " ORDER BY f.scheduled_departure", (ctx.session_id,))


def search_flights(
    ctx: ToolContext,
    departure_airport: str | None = None,
    arrival_airport: str | None = None,
    date: str | None = None,
) -> list[Row]:
    """Flights on one day (``date`` as YYYY-MM-DD, default tomorrow), earliest first."""
    day = date or FIRST_FLIGHT_DAY.isoformat()
    sql = "SELECT * FROM flights WHERE scheduled_departure LIKE ?"
    params: list[Any] = [f"{day}T%"]
    if departure_airport:
        sql += " AND departure_airport = ?"
        params.append(departure_airport)
    if arrival_airport:
        sql += " AND arrival_airport = ?"
        params.append(arrival_airport)
    return _rows(ctx, sql + " ORDER BY scheduled_departure, flight_id", tuple(params))


def update_ticket_to_new_flight(
    ctx: ToolContext, ticket_no: str, new_flight_id: int, seat_preference: str | None = None
) -> Row:
    """Move a ticket to another flight on the same route; a seat preference picks the seat."""
    ticket = _one(
        ctx,
        _TICKET_SQL + " AND t.ticket_no = ?",
        (ctx.session_id, ticket_no),
        f"no active ticket {ticket_no}",
    )
    flight = _one(
        ctx,
        "SELECT * FROM flights WHERE flight_id = ?",
        (new_flight_id,),
        f"no flight with ID {new_flight_id}",
    )
    route = (ticket["departure_airport"], ticket["arrival_airport"])
    if (flight["departure_airport"], flight["arrival_airport"]) != route:
        raise ToolError(f"flight {new_flight_id} does not fly {route[0]}→{route[1]}")
    if flight["flight_id"] == ticket["flight_id"]:
        raise ToolError(f"ticket {ticket_no} is already on flight {new_flight_id}")
    seat = _SEATS.get(seat_preference or "", ticket["seat_no"])
    ctx.conn.execute(
        "UPDATE session_tickets SET flight_id = ?, seat_no = ? "
        "WHERE session_id = ? AND ticket_no = ?",
        (new_flight_id, seat, ctx.session_id, ticket_no),
    )
    return {"ticket_no": ticket_no, "seat_no": seat, **flight}


def cancel_ticket(ctx: ToolContext, ticket_no: str) -> Row:
    ticket = _one(
        ctx,
        _TICKET_SQL + " AND t.ticket_no = ?",
        (ctx.session_id, ticket_no),
        f"no active ticket {ticket_no}",
    )
    ctx.conn.execute(
        "UPDATE session_tickets SET status = 'cancelled' WHERE session_id = ? AND ticket_no = ?",
        (ctx.session_id, ticket_no),
    )
    return {**ticket, "status": "cancelled"}


# --- hotels, car rentals, excursions ---------------------------------------------------------


def search_hotels(ctx: ToolContext, location: str, price_tier: str | None = None) -> list[Row]:
    """Hotels in a city (optionally one price tier), in ID order."""
    sql = "SELECT * FROM hotels WHERE location = ? COLLATE NOCASE"
    params: tuple[Any, ...] = (location,)
    if price_tier:
        sql += " AND price_tier = ? COLLATE NOCASE"
        params += (price_tier,)
    return _rows(ctx, sql + " ORDER BY id", params)


def search_car_rentals(ctx: ToolContext, location: str) -> list[Row]:
    """Car rentals in a city, cheapest per day first."""
    return _rows(
        ctx,
        "SELECT * FROM car_rentals WHERE location = ? COLLATE NOCASE ORDER BY price_per_day, id",
        (location,),
    )


def search_trip_recommendations(
    ctx: ToolContext, location: str, keywords: str | None = None
) -> list[Row]:
    """Things to do in a city; with keywords, those tagged with any of them (space-separated)."""
    rows = _rows(
        ctx,
        "SELECT * FROM trip_recommendations WHERE location = ? COLLATE NOCASE ORDER BY id",
        (location,),
    )
    if keywords:
        wanted = set(keywords.lower().split())
        rows = [row for row in rows if wanted & set(row["keywords"].split())]
    return rows


_TABLES = {"hotel": "hotels", "car": "car_rentals", "excursion": "trip_recommendations"}


def _book(ctx: ToolContext, kind: str, item_id: int) -> Row:
    item = _one(
        ctx,
        f"SELECT * FROM {_TABLES[kind]} WHERE id = ?",
        (item_id,),
        f"no {kind} with ID {item_id}",
    )
    try:
        ctx.conn.execute("INSERT INTO bookings VALUES (?, ?, ?)", (ctx.session_id, kind, item_id))
    except sqlite3.IntegrityError:
        raise ToolError(f"{item['name']} is already booked") from None
    return {**item, "booked": True}


def book_hotel(ctx: ToolContext, hotel_id: int) -> Row:
    return _book(ctx, "hotel", hotel_id)


def book_car_rental(ctx: ToolContext, rental_id: int) -> Row:
    return _book(ctx, "car", rental_id)


def book_excursion(ctx: ToolContext, recommendation_id: int) -> Row:
    return _book(ctx, "excursion", recommendation_id)


def cancel_hotel(ctx: ToolContext, hotel_id: int) -> Row:
    deleted = ctx.conn.execute(
        "DELETE FROM bookings WHERE session_id = ? AND kind = 'hotel' AND item_id = ?",
        (ctx.session_id, hotel_id),
    ).rowcount
    if not deleted:
        raise ToolError(f"hotel {hotel_id} is not booked")
    hotel = _one(ctx, "SELECT * FROM hotels WHERE id = ?", (hotel_id,), "")
    return {**hotel, "booked": False}


def lookup_policy(ctx: ToolContext, topic: str) -> Row:
    """The airline's policy on one topic: baggage, changes, cancellation, pets, check-in."""
    if topic not in POLICIES:
        raise ToolError(f"no policy on {topic!r}")
    return {"topic": topic, "text": POLICIES[topic]}


# --- recording -----------------------------------------------------------------------------


@dataclass
class ToolBox:
    """Calls tools for one turn and records every call as a tool invocation."""

    ctx: ToolContext
    invocations: list[dict[str, Any]] = field(default_factory=list)

    def call(self, tool: Callable[..., T], **args: Any) -> T:
        started = time.perf_counter()
        result: Any = None
        error: str | None = None
        try:
            value = tool(self.ctx, **args)
            result = value
            return value
        except ToolError as exc:
            error = str(exc)
            raise
        finally:
            self.invocations.append(
                {
                    "name": tool.__name__,
                    "args": args,
                    "result": result,
                    "duration_ms": elapsed_ms(started),
                    "error": error,
                }
            )
