"""The travel agent's world: a small SQLite database built at start-up, the same every time.

One passenger (``PASSENGER_ID``) holds two tickets: the outbound ``LX0112 CDG→BSL`` on
2025-06-12 at 12:09 (flight id 101, seat 17B) and the return ``LX0113 BSL→CDG`` on
2025-06-19 at 16:25 (flight id 804, seat 21D). "Today" in this world is ``TODAY``
(2025-06-11); flights run daily from 2025-06-12 to 2025-06-19, with ids
``(day index + 1) * 100 + leg number`` (so LX0114 CDG→BSL on 2025-06-12 is flight 102).

Reference tables (flights, hotels, car rentals, trip recommendations, policies) never
change. What a conversation changes lives in per-session tables (``session_tickets``,
``bookings``), so concurrent sessions never see each other's bookings.

Basel's hotels, cheapest first: Holiday Inn Basel (ID 8, CHF 129), Hyatt Regency Basel
(ID 3, CHF 245), Hilton Basel (ID 1, CHF 310). Zurich's two cheapest tie on price:
Ibis Zurich City West (ID 4) and Motel One Zurich (ID 12), both CHF 149.
"""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta

TODAY = date(2025, 6, 11)
FIRST_FLIGHT_DAY = date(2025, 6, 12)
FLIGHT_DAYS = 8
PASSENGER_ID = "3442 587242"
DEFAULT_CITY = "Basel"  # the passenger's destination: used when a question names no city

# City name → its airport code.
CITIES: dict[str, str] = {
    "Basel": "BSL",
    "Zurich": "ZRH",
    "Geneva": "GVA",
    "Paris": "CDG",
    "Amsterdam": "AMS",
    "Frankfurt": "FRA",
    "London": "LHR",
}

# (flight_no, from, to, departure HH:MM, minutes in the air); the leg number is position + 1.
_LEGS: list[tuple[str, str, str, str, int]] = [
    ("LX0112", "CDG", "BSL", "12:09", 65),
    ("LX0114", "CDG", "BSL", "18:40", 65),
    ("LX0111", "BSL", "CDG", "07:30", 70),
    ("LX0113", "BSL", "CDG", "16:25", 70),
    ("LX0632", "CDG", "ZRH", "09:15", 75),
    ("LX0638", "CDG", "ZRH", "19:05", 75),
    ("LX0631", "ZRH", "CDG", "07:05", 80),
    ("LX0637", "ZRH", "CDG", "17:10", 80),
    ("LX2806", "GVA", "ZRH", "07:10", 55),
    ("LX2810", "GVA", "ZRH", "17:45", 55),
    ("LX2807", "ZRH", "GVA", "09:05", 55),
    ("LX2811", "ZRH", "GVA", "19:20", 55),
    ("LX0781", "AMS", "BSL", "11:20", 85),
    ("LX0780", "BSL", "AMS", "08:05", 85),
    ("LX0729", "AMS", "ZRH", "10:20", 90),
    ("LX0728", "ZRH", "AMS", "07:40", 95),
    ("LX1071", "FRA", "ZRH", "08:50", 60),
    ("LX1070", "ZRH", "FRA", "18:35", 60),
    ("LX0317", "LHR", "ZRH", "11:45", 100),
    ("LX0316", "ZRH", "LHR", "07:25", 105),
]

# (ticket_no, book_ref, flight_id, seat_no, fare_conditions)
_TICKETS = [
    ("7240005432906569", "C46E9F", 101, "17B", "Economy"),
    ("7240005432906570", "C46E9F", 804, "21D", "Economy"),
]

# (id, name, location, price_tier, CHF per night)
_HOTELS = [
    (1, "Hilton Basel", "Basel", "luxury", 310),
    (2, "Marriott Zurich", "Zurich", "upscale", 280),
    (3, "Hyatt Regency Basel", "Basel", "upscale", 245),
    (4, "Ibis Zurich City West", "Zurich", "budget", 149),
    (5, "Park Hyatt Zurich", "Zurich", "luxury", 520),
    (6, "Ibis Geneva Centre", "Geneva", "budget", 139),
    (7, "InterContinental Geneva", "Geneva", "luxury", 450),
    (8, "Holiday Inn Basel", "Basel", "midscale", 129),
    (9, "Novotel Geneva Centre", "Geneva", "midscale", 189),
    (10, "Pullman Paris Montparnasse", "Paris", "upscale", 260),
    (11, "Novotel Paris Gare de Lyon", "Paris", "midscale", 175),
    (12, "Motel One Zurich", "Zurich", "budget", 149),
    (13, "Le Meurice Paris", "Paris", "luxury", 980),
    (14, "NH Amsterdam Centre", "Amsterdam", "midscale", 165),
    (15, "Conservatorium Amsterdam", "Amsterdam", "luxury", 620),
    (16, "Motel One Frankfurt", "Frankfurt", "budget", 99),
    (17, "Steigenberger Frankfurt", "Frankfurt", "luxury", 390),
    (18, "Premier Inn London City", "London", "budget", 120),
    (19, "The Savoy London", "London", "luxury", 850),
]

# (id, name, location, car class, CHF per day)
_CAR_RENTALS = [
    (1, "Europcar Basel", "Basel", "compact", 65),
    (2, "Avis Basel", "Basel", "midsize", 72),
    (3, "Hertz Basel", "Basel", "SUV", 89),
    (4, "Sixt Zurich", "Zurich", "compact", 70),
    (5, "Hertz Zurich", "Zurich", "midsize", 84),
    (6, "Budget Geneva", "Geneva", "compact", 58),
    (7, "Europcar Geneva", "Geneva", "midsize", 66),
    (8, "Avis Paris", "Paris", "compact", 61),
    (9, "Sixt Amsterdam", "Amsterdam", "compact", 67),
    (10, "Europcar Frankfurt", "Frankfurt", "compact", 55),
    (11, "Enterprise London", "London", "midsize", 74),
]

# (id, name, location, keywords)
_RECOMMENDATIONS = [
    (1, "Basel Minster", "Basel", "history architecture church view"),
    (2, "Kunstmuseum Basel", "Basel", "museum art"),
    (3, "Swiss National Museum", "Zurich", "museum history"),
    (4, "Lake Zurich boat cruise", "Zurich", "boat lake outdoor"),
    (5, "Uetliberg hike", "Zurich", "hiking outdoor view"),
    (6, "Jet d'Eau lakeside walk", "Geneva", "lake outdoor view"),
    (7, "Patek Philippe Museum", "Geneva", "museum history"),
    (8, "Louvre Museum", "Paris", "museum art history"),
    (9, "Fondation Beyeler", "Basel", "museum art"),
    (10, "Rhine ferry ride", "Basel", "boat outdoor"),
    (11, "Eiffel Tower summit", "Paris", "view architecture"),
    (12, "Rijksmuseum", "Amsterdam", "museum art history"),
    (13, "Amsterdam canal cruise", "Amsterdam", "boat outdoor"),
    (14, "Staedel Museum", "Frankfurt", "museum art"),
    (15, "British Museum", "London", "museum history"),
]

POLICIES: dict[str, str] = {
    "baggage": (
        "Economy fares include one checked bag up to 23 kg and one carry-on bag up to 8 kg; "
        "each extra checked bag costs CHF 60."
    ),
    "changes": (
        "Flight changes are free up to 24 hours before departure and cost CHF 50 after that; "
        "you can only change to a flight on the same route."
    ),
    "cancellation": (
        "Tickets cancelled up to 24 hours before departure are refunded in full; "
        "after that only taxes are refunded."
    ),
    "pets": "Cats and small dogs up to 8 kg may travel in the cabin in a carrier for CHF 70.",
    "check-in": "Online check-in opens 23 hours before departure and closes 40 minutes before.",
    "general": (
        "I can answer questions about baggage, flight changes, cancellations, pets and check-in."
    ),
}

_SCHEMA = """
CREATE TABLE flights (
    flight_id INTEGER PRIMARY KEY, flight_no TEXT NOT NULL,
    departure_airport TEXT NOT NULL, arrival_airport TEXT NOT NULL,
    scheduled_departure TEXT NOT NULL, scheduled_arrival TEXT NOT NULL);
CREATE INDEX flights_route ON flights (departure_airport, arrival_airport, scheduled_departure);
CREATE TABLE tickets (
    ticket_no TEXT PRIMARY KEY, book_ref TEXT NOT NULL, passenger_id TEXT NOT NULL,
    flight_id INTEGER NOT NULL REFERENCES flights, seat_no TEXT NOT NULL,
    fare_conditions TEXT NOT NULL);
CREATE TABLE session_tickets (
    session_id TEXT NOT NULL, ticket_no TEXT NOT NULL REFERENCES tickets,
    flight_id INTEGER NOT NULL REFERENCES flights, seat_no TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active', PRIMARY KEY (session_id, ticket_no));
CREATE TABLE hotels (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, location TEXT NOT NULL,
    price_tier TEXT NOT NULL, price_per_night INTEGER NOT NULL);
CREATE TABLE car_rentals (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, location TEXT NOT NULL,
    car_class TEXT NOT NULL, price_per_day INTEGER NOT NULL);
CREATE TABLE trip_recommendations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, location TEXT NOT NULL,
    keywords TEXT NOT NULL);
CREATE TABLE bookings (
    session_id TEXT NOT NULL, kind TEXT NOT NULL, item_id INTEGER NOT NULL,
    PRIMARY KEY (session_id, kind, item_id));
CREATE TABLE policies (topic TEXT PRIMARY KEY, text TEXT NOT NULL);
"""


def flight_rows() -> list[tuple[int, str, str, str, str, str]]:
    """Every scheduled flight: (flight_id, flight_no, from, to, departure, arrival)."""
    rows = []
    for day_index in range(FLIGHT_DAYS):
        day = FIRST_FLIGHT_DAY + timedelta(days=day_index)
        for leg_index, (flight_no, origin, destination, hhmm, minutes) in enumerate(_LEGS):
            departs = datetime.combine(day, datetime.strptime(hhmm, "%H:%M").time())
            arrives = departs + timedelta(minutes=minutes)
            flight_id = (day_index + 1) * 100 + leg_index + 1
            rows.append(
                (
                    flight_id,
                    flight_no,
                    origin,
                    destination,
                    departs.isoformat(timespec="minutes"),
                    arrives.isoformat(timespec="minutes"),
                )
            )
    return rows


def open_database() -> sqlite3.Connection:
    """A fresh in-memory database holding the whole travel world (a few milliseconds)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.executescript(_SCHEMA)
    conn.executemany("INSERT INTO flights VALUES (?, ?, ?, ?, ?, ?)", flight_rows())
    conn.executemany(
        "INSERT INTO tickets VALUES (?, ?, ?, ?, ?, ?)",
        [(no, ref, PASSENGER_ID, fid, seat, fare) for no, ref, fid, seat, fare in _TICKETS],
    )
    conn.executemany("INSERT INTO hotels VALUES (?, ?, ?, ?, ?)", _HOTELS)
    conn.executemany("INSERT INTO car_rentals VALUES (?, ?, ?, ?, ?)", _CAR_RENTALS)
    conn.executemany("INSERT INTO trip_recommendations VALUES (?, ?, ?, ?)", _RECOMMENDATIONS)
    conn.executemany("INSERT INTO policies VALUES (?, ?)", POLICIES.items())
    return conn


def catalog_names() -> list[tuple[str, str, str]]:
    """(kind, name, location) of everything bookable, for recognising names in a question."""
    return (
        [("hotel", name, city) for _, name, city, _, _ in _HOTELS]
        + [("car", name, city) for _, name, city, _, _ in _CAR_RENTALS]
        + [("excursion", name, city) for _, name, city, _ in _RECOMMENDATIONS]
    )
