"""What the travel agent does for each intent: call tools, update memory, word the reply.

Replies are short and fixed in form, so datasets can expect them word for word, e.g.
``Your upcoming flight is LX0112 CDG→BSL at 12:09 PM.`` or ``Holiday Inn Basel booked.``
Three of the agent's four flaws live here (see ``assay.demo``): flight searches read
the first city named as the origin, car-rental searches stick to the previous search's
city, and "the cheapest hotel" among a price tie is the one with the higher ID.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from assay.demo import tools as t
from assay.demo.data import CITIES, DEFAULT_CITY, FIRST_FLIGHT_DAY, catalog_names
from assay.demo.intents import Intent, Parsed
from assay.demo.memory import SessionMemory
from assay.demo.tools import Row, ToolBox, ToolError

GREETING = "Hello! I can help with your flights, hotels, rental cars, excursions and policies."
THANKS = "You're welcome. Have a good trip!"
FALLBACK = (
    "Sorry, I can't help with that. I can help with your flights, hotels, rental cars, "
    "excursions and policies."
)
_PREFERENCE_WORDS = {
    ("seat", "window"): "a window seat",
    ("seat", "aisle"): "an aisle seat",
    ("hotel", "cheap"): "cheap hotels",
    ("hotel", "luxury"): "luxury hotels",
}
_PLURAL = {"hotel": "hotels", "car": "rental cars", "excursion": "excursions"}


# --- wording -------------------------------------------------------------------------------


def clock(iso: str) -> str:
    """``2025-06-12T18:40`` → ``6:40 PM``."""
    hour, minute = int(iso[11:13]), iso[14:16]
    return f"{(hour - 1) % 12 + 1}:{minute} {'AM' if hour < 12 else 'PM'}"


def flight_label(row: Row) -> str:
    route = f"{row['departure_airport']}→{row['arrival_airport']}"
    return f"{row['flight_no']} {route} at {clock(row['scheduled_departure'])}"


def _listing(kind: str, rows: list[Row]) -> str:
    def one(row: Row) -> str:
        if kind == "hotel":
            return f"{row['name']} (ID {row['id']}, CHF {row['price_per_night']}/night)"
        if kind == "car":
            return f"{row['name']} (ID {row['id']}, CHF {row['price_per_day']}/day)"
        return f"{row['name']} (ID {row['id']})"

    return ", ".join(one(row) for row in rows)


def acknowledge(prefs: tuple[tuple[str, str], ...]) -> str:
    return "Noted: you prefer " + " and ".join(_PREFERENCE_WORDS[p] for p in prefs) + "."


# --- recognising names ---------------------------------------------------------------------

_STOP = {"the", "and", "of", "de", "hotel", "city", "centre", "center", "one"} | {
    city.lower() for city in CITIES
}
_WORD = re.compile(r"\w+")


def _name_tokens(name: str) -> set[str]:
    return {w for w in _WORD.findall(name.lower()) if w not in _STOP and len(w) > 2}


def _best_by_name(words: frozenset[str], rows: list[Row]) -> Row | None:
    """The row whose name shares the most words with the question; the first one on a tie."""
    scored = [(len(_name_tokens(row["name"]) & words), row) for row in rows]
    best = max((score for score, _ in scored), default=0)
    return next(row for score, row in scored if score == best) if best else None


_CATALOG: list[Row] = [
    {"kind": kind, "name": name, "location": city} for kind, name, city in catalog_names()
]


# --- flights -------------------------------------------------------------------------------


def flight_info(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    rows = tools.call(t.fetch_user_flight_information)
    if not rows:
        return "You have no upcoming flights."
    if p.return_trip and len(rows) > 1:
        day = rows[-1]["scheduled_departure"][:10]
        return f"Your return flight is {flight_label(rows[-1])} on {day}."
    return f"Your upcoming flight is {flight_label(rows[0])}."


def search_flights(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    origin: str | None = None
    destination: str | None = None
    if len(p.cities) >= 2:
        origin, destination = p.cities[0], p.cities[1]  # flaw: "to X from Y" is read X → Y
    elif p.cities and p.from_city:
        origin = p.from_city
    elif p.cities:
        destination = p.cities[0]
    else:
        return "Where would you like to fly? For example: flights from Paris to Basel."
    args: dict[str, Any] = {}
    if origin:
        args["departure_airport"] = CITIES[origin]
    if destination:
        args["arrival_airport"] = CITIES[destination]
    if p.date:
        args["date"] = p.date
    rows = tools.call(t.search_flights, **args)
    memory.remember("flight", rows, destination or origin)
    day = p.date or FIRST_FLIGHT_DAY.isoformat()
    if not rows:
        route = " ".join(
            part
            for part in (origin and f"from {origin}", destination and f"to {destination}")
            if part
        )
        return f"I found no flights {route} on {day}."
    return f"Flights on {day}: " + ", ".join(flight_label(row) for row in rows) + "."


def _day_after(row: Row) -> str:
    return (date.fromisoformat(row["scheduled_departure"][:10]) + timedelta(days=1)).isoformat()


def _pick_new_flight(p: Parsed, ticket: Row, options: list[Row], day: str) -> Row | None:
    current = ticket["scheduled_departure"][11:]
    if p.flight_no:
        return next((o for o in options if o["flight_no"] == p.flight_no), None)
    if p.shift == "later":
        return next((o for o in options if o["scheduled_departure"][11:] > current), None)
    if p.shift == "earlier":
        earlier = [o for o in options if o["scheduled_departure"][11:] < current]
        return earlier[-1] if earlier else None
    if day != ticket["scheduled_departure"][:10]:
        return next((o for o in options if o["flight_no"] == ticket["flight_no"]), None)
    return None


def change_flight(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    tickets = tools.call(t.fetch_user_flight_information)
    if not tickets:
        return "You have no booked flight to change."
    ticket = tickets[-1] if p.return_trip and len(tickets) > 1 else tickets[0]
    day = p.date or (_day_after(ticket) if p.next_day else ticket["scheduled_departure"][:10])
    route = {k: ticket[k] for k in ("departure_airport", "arrival_airport")}
    options = tools.call(t.search_flights, **route, date=day)
    if not options:
        return (
            f"I found no {route['departure_airport']}→{route['arrival_airport']} flights on {day}."
        )
    choice = _pick_new_flight(p, ticket, options, day)
    if choice is None:
        labels = ", ".join(flight_label(row) for row in options)
        return f"Which flight would you like instead? Flights on {day}: {labels}."
    if choice["flight_id"] == ticket["flight_id"]:
        return f"You are already on {flight_label(choice)} on {day}."
    args: dict[str, Any] = {"ticket_no": ticket["ticket_no"], "new_flight_id": choice["flight_id"]}
    if seat := memory.preference("seat"):
        args["seat_preference"] = seat
    try:
        moved = tools.call(t.update_ticket_to_new_flight, **args)
    except ToolError as exc:
        return f"I couldn't change your flight: {exc}."
    return f"Your ticket is now on {flight_label(moved)} on {day}, seat {moved['seat_no']}."


# --- cancelling ----------------------------------------------------------------------------


def cancel(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    if p.kind == "hotel":
        return _cancel_hotel(p, memory, tools)
    if p.kind == "flight" or {"trip", "reservation"} & p.words:
        tickets = tools.call(t.fetch_user_flight_information)
        if not tickets:
            return "You have no flight to cancel."
        ticket = tickets[-1] if p.return_trip and len(tickets) > 1 else tickets[0]
        tools.call(t.cancel_ticket, ticket_no=ticket["ticket_no"])
        route = f"{ticket['departure_airport']}→{ticket['arrival_airport']}"
        return f"Your ticket {ticket['ticket_no']} for {ticket['flight_no']} {route} is cancelled."
    if p.kind in ("car", "excursion"):
        return (
            "I can only cancel flights and hotel bookings; please contact the provider "
            "to cancel a rental car or an excursion."
        )
    return "What should I cancel: your flight or your hotel booking?"


def _cancel_hotel(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    hotels = [item for kind, item in memory.booked if kind == "hotel"]
    chosen = next((h for h in hotels if h["id"] == p.item_id), None)
    chosen = chosen or _best_by_name(p.words, hotels) or (hotels[-1] if hotels else None)
    if chosen is None:
        return "You have no hotel booking to cancel."
    tools.call(t.cancel_hotel, hotel_id=chosen["id"])
    memory.booked.remove(("hotel", chosen))
    return f"Your booking at {chosen['name']} is cancelled."


# --- hotels, cars, excursions --------------------------------------------------------------


def search_hotels(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    city = p.city or memory.last_city or DEFAULT_CITY
    preferred = memory.preference("hotel")
    tier = p.price_tier or ("luxury" if preferred == "luxury" else None)
    cheap = p.cheap or preferred == "cheap"
    args: dict[str, Any] = {"location": city}
    if tier:
        args["price_tier"] = tier
    rows = tools.call(t.search_hotels, **args)
    if cheap:
        rows = sorted(rows, key=lambda row: (row["price_per_night"], row["id"]))
    memory.remember("hotel", rows, city)
    what = f"{tier} hotels" if tier else "hotels"
    if not rows:
        return f"I found no {what} in {city}."
    head = f"{what[0].upper()}{what[1:]} in {city}" + (", cheapest first" if cheap else "")
    return f"{head}: {_listing('hotel', rows)}."


def search_cars(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    city = memory.last_city or p.city or DEFAULT_CITY  # flaw: the named city should come first
    rows = tools.call(t.search_car_rentals, location=city)
    memory.remember("car", rows, city)
    if not rows:
        return f"I found no rental cars in {city}."
    return f"Rental cars in {city}: {_listing('car', rows)}."


def search_excursions(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    city = p.city or memory.last_city or DEFAULT_CITY
    args: dict[str, Any] = {"location": city}
    if p.keywords:
        args["keywords"] = p.keywords
    rows = tools.call(t.search_trip_recommendations, **args)
    memory.remember("excursion", rows, city)
    if not rows:
        return f"I found nothing matching {p.keywords!r} in {city}."
    return f"In {city} I recommend: {_listing('excursion', rows)}."


@dataclass(frozen=True)
class _Bookable:
    search: Callable[..., list[Row]]
    book: Callable[..., Row]
    id_arg: str
    price: str


_BOOKABLE = {
    "hotel": _Bookable(t.search_hotels, t.book_hotel, "hotel_id", "price_per_night"),
    "car": _Bookable(t.search_car_rentals, t.book_car_rental, "rental_id", "price_per_day"),
    "excursion": _Bookable(
        t.search_trip_recommendations, t.book_excursion, "recommendation_id", ""
    ),
}


def _pick(p: Parsed, kind: str, rows: list[Row]) -> Row | None:
    if not rows:
        return None
    price = _BOOKABLE[kind].price
    if p.ordinal == "cheapest" and price:
        low = min(row[price] for row in rows)
        tied = [row for row in rows if row[price] == low]
        # flaw: on a price tie a hotel booking takes the higher ID, not the first listed
        return max(tied, key=lambda row: row["id"]) if kind == "hotel" else tied[0]
    if p.ordinal in ("first", "cheapest"):
        return rows[0]
    return _best_by_name(p.words, rows)


def book(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    # a name the question mentions ("Book the Kunstmuseum") tells the kind and the city
    named = _best_by_name(p.words, [c for c in _CATALOG if p.kind in (None, c["kind"])])
    kind = p.kind or (named["kind"] if named else memory.last_kind)
    if kind == "flight":
        return (
            "I can't book new flights, but I can change your ticket to another flight "
            "on the same route."
        )
    if kind not in _BOOKABLE:
        return "What would you like to book: a hotel, a rental car or an excursion?"
    spec = _BOOKABLE[kind]
    chosen_id = p.item_id
    if chosen_id is None:
        chosen = None
        if memory.last_kind == kind and p.city is None:
            chosen = _pick(p, kind, memory.last_results)
        if chosen is None and p.ordinal and p.city is None:
            plural = _PLURAL[kind]
            return (
                f"I don't have a list of {plural} to choose from yet. "
                f"Ask me for {plural} in a city first."
            )
        if chosen is None:
            city = p.city or (named and named["location"]) or memory.last_city or DEFAULT_CITY
            rows = tools.call(spec.search, location=city)
            memory.remember(kind, rows, city)
            chosen = _pick(p, kind, rows)
            if chosen is None:
                listing = _listing(kind, rows) or "none found"
                return (
                    f"Which one should I book? {_PLURAL[kind].capitalize()} in {city}: {listing}."
                )
        chosen_id = chosen["id"]
    try:
        booked = tools.call(spec.book, **{spec.id_arg: chosen_id})
    except ToolError as exc:
        return f"I couldn't book that: {exc}."
    memory.booked.append((kind, booked))
    return f"{booked['name']} booked."


def policy(p: Parsed, memory: SessionMemory, tools: ToolBox) -> str:
    return str(tools.call(t.lookup_policy, topic=p.policy_topic or "general")["text"])


def _fixed(text: str) -> Callable[[Parsed, SessionMemory, ToolBox], str]:
    return lambda p, memory, tools: text


HANDLERS: dict[Intent, Callable[[Parsed, SessionMemory, ToolBox], str]] = {
    Intent.POLICY: policy,
    Intent.CANCEL: cancel,
    Intent.CHANGE_FLIGHT: change_flight,
    Intent.BOOK: book,
    Intent.FLIGHT_INFO: flight_info,
    Intent.SEARCH_FLIGHTS: search_flights,
    Intent.SEARCH_HOTELS: search_hotels,
    Intent.SEARCH_CARS: search_cars,
    Intent.SEARCH_EXCURSIONS: search_excursions,
    Intent.PREFERENCE: lambda p, memory, tools: acknowledge(p.prefs),
    Intent.GREETING: _fixed(GREETING),
    Intent.THANKS: _fixed(THANKS),
    Intent.FALLBACK: _fixed(FALLBACK),
}
