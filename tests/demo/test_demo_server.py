"""The travel agent over real HTTP on 127.0.0.1: contract, memory, flaws, errors."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
import pytest

from assay.demo import serve_in_background
from tests.demo._client import calls, chat

BASEL_CHEAPEST_FIRST = (
    "Hotels in Basel, cheapest first: Holiday Inn Basel (ID 8, CHF 129/night), "
    "Hyatt Regency Basel (ID 3, CHF 245/night), Hilton Basel (ID 1, CHF 310/night)."
)


async def test_health(http: aiohttp.ClientSession, agent_url: str) -> None:
    async with http.get(f"{agent_url}/health") as r:
        assert (r.status, await r.json()) == (200, {"status": "ok"})


async def test_reply_shape_and_tool_invocations(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    reply = await chat(http, agent_url, "Any museums in Basel?", session_id)
    assert set(reply) == {"response", "tool_invocations", "token_usage", "session_id"}
    assert reply["response"] == (
        "In Basel I recommend: Kunstmuseum Basel (ID 2), Fondation Beyeler (ID 9)."
    )
    (invocation,) = reply["tool_invocations"]
    assert set(invocation) == {"name", "args", "result", "duration_ms", "error"}
    assert invocation["name"] == "search_trip_recommendations"
    assert invocation["args"] == {"location": "Basel", "keywords": "museum"}
    assert [item["name"] for item in invocation["result"]] == [
        "Kunstmuseum Basel",
        "Fondation Beyeler",
    ]
    assert invocation["error"] is None
    assert invocation["duration_ms"] >= 0
    assert reply["token_usage"] == {"prompt_tokens": 4, "completion_tokens": 12, "total_tokens": 16}
    assert reply["session_id"] == session_id


async def test_token_usage_grows_with_the_conversation(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    await chat(http, agent_url, "I like a cheap hotel for my 7 day stay.", session_id)
    reply = await chat(http, agent_url, "Book the cheapest hotel.", session_id)
    # turn 1: 10 query words + a 25-word listing; turn 2: 4 words, "Holiday Inn Basel booked."
    assert reply["token_usage"] == {"prompt_tokens": 39, "completion_tokens": 4, "total_tokens": 43}


async def test_book_the_cheapest_hotel_remembers_the_search(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    first = await chat(http, agent_url, "I like a cheap hotel for my 7 day stay.", session_id)
    assert first["response"] == BASEL_CHEAPEST_FIRST
    assert calls(first) == [("search_hotels", {"location": "Basel"})]
    booked = await chat(http, agent_url, "Book the cheapest hotel.", session_id)
    assert booked["response"] == "Holiday Inn Basel booked."
    assert calls(booked) == [("book_hotel", {"hotel_id": 8})]
    assert booked["tool_invocations"][0]["result"]["booked"] is True


async def test_book_the_cheapest_hotel_in_a_fresh_session_has_no_referent(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    reply = await chat(http, agent_url, "Book the cheapest hotel.", session_id)
    assert reply["response"] == (
        "I don't have a list of hotels to choose from yet. Ask me for hotels in a city first."
    )
    assert reply["tool_invocations"] == []


async def test_flaw_1_forgets_a_preference_on_the_fourth_turn(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    for query in (
        "I like cheap hotels.",
        "What time is my upcoming flight?",
        "Any museums in Basel?",
    ):
        await chat(http, agent_url, query, session_id)
    reply = await chat(http, agent_url, "Find me a hotel in Zurich.", session_id)
    assert reply["response"] == (
        "Hotels in Zurich: Marriott Zurich (ID 2, CHF 280/night), "
        "Ibis Zurich City West (ID 4, CHF 149/night), Park Hyatt Zurich (ID 5, CHF 520/night), "
        "Motel One Zurich (ID 12, CHF 149/night)."
    )


async def test_flaw_2_a_price_tie_books_the_higher_id(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    listing = await chat(http, agent_url, "Cheap hotels in Zurich?", session_id)
    assert listing["response"].startswith(
        "Hotels in Zurich, cheapest first: Ibis Zurich City West (ID 4, CHF 149/night), "
        "Motel One Zurich (ID 12, CHF 149/night),"
    )
    reply = await chat(http, agent_url, "Book the cheapest hotel.", session_id)
    assert reply["response"] == "Motel One Zurich booked."  # a correct agent books ID 4
    assert calls(reply) == [("book_hotel", {"hotel_id": 12})]


async def test_flaw_3_car_rentals_stick_to_the_previous_city(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    fresh = await chat(http, agent_url, "I need a rental car in Zurich.", f"{session_id}-fresh")
    assert calls(fresh) == [("search_car_rentals", {"location": "Zurich"})]
    await chat(http, agent_url, "Show me hotels in Basel.", session_id)
    reply = await chat(http, agent_url, "I need a rental car in Zurich.", session_id)
    assert calls(reply) == [("search_car_rentals", {"location": "Basel"})]
    assert reply["response"].startswith("Rental cars in Basel: Europcar Basel (ID 1, CHF 65/day)")


async def test_flaw_4_flight_search_reads_the_first_city_as_origin(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    right = await chat(http, agent_url, "Flights from Geneva to Zurich?", session_id)
    assert calls(right) == [
        ("search_flights", {"departure_airport": "GVA", "arrival_airport": "ZRH"})
    ]
    assert right["response"] == (
        "Flights on 2025-06-12: LX2806 GVA→ZRH at 7:10 AM, LX2810 GVA→ZRH at 5:45 PM."
    )
    wrong = await chat(http, agent_url, "Are there flights to Zurich from Geneva?", session_id)
    assert calls(wrong) == [
        ("search_flights", {"departure_airport": "ZRH", "arrival_airport": "GVA"})
    ]


@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        (b"not json", "not valid JSON"),
        (b'["a list"]', "must be a JSON object"),
        (b'{"session_id": "s"}', "'query'"),
        (b'{"query": "   ", "session_id": "s"}', "'query'"),
        (b'{"query": 5, "session_id": "s"}', "'query'"),
        (b'{"query": "hi"}', "'session_id'"),
        (b'{"query": "hi", "session_id": true}', "'session_id'"),
        (b'{"query": "hi", "session_id": "s", "turn_id": [1]}', "'turn_id'"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
async def test_bad_requests_are_400_with_a_json_error(
    http: aiohttp.ClientSession, agent_url: str, body: bytes, mentions: str
) -> None:
    async with http.post(f"{agent_url}/chat", data=body) as r:
        assert r.status == 400
        error = (await r.json())["error"]
    assert mentions in error
    assert '{"query": "...", "session_id": "..."' in error


async def test_integer_session_and_turn_ids_are_accepted(
    http: aiohttp.ClientSession, agent_url: str
) -> None:
    body = {"query": "hello", "session_id": 424242, "turn_id": 1}
    async with http.post(f"{agent_url}/chat", json=body) as r:
        assert r.status == 200
        assert (await r.json())["session_id"] == "424242"


async def test_a_deleted_session_is_404(
    http: aiohttp.ClientSession, agent_url: str, session_id: str
) -> None:
    await chat(http, agent_url, "Cheap hotels in Basel", session_id)
    async with http.delete(f"{agent_url}/sessions/{session_id}") as r:
        assert (r.status, await r.json()) == (200, {"session_id": session_id, "deleted": True})
    lost = await chat(http, agent_url, "Book the cheapest hotel.", session_id, status=404)
    assert lost == {"error": "session not found"}
    async with http.delete(f"{agent_url}/sessions/{session_id}") as r:
        assert (r.status, await r.json()) == (404, {"error": "session not found"})
    async with http.delete(f"{agent_url}/sessions/never-used") as r:
        assert r.status == 404


async def test_hundreds_of_sessions_in_flight(http: aiohttp.ClientSession, agent_url: str) -> None:
    cities = {
        "Basel": "Holiday Inn Basel",
        "Zurich": "Motel One Zurich",
        "Geneva": "Ibis Geneva Centre",
    }

    async def converse(n: int) -> str:
        city = list(cities)[n % 3]
        await chat(http, agent_url, f"Cheap hotels in {city}", f"load-{n}")
        return str(
            (await chat(http, agent_url, "Book the cheapest hotel.", f"load-{n}"))["response"]
        )

    replies = await asyncio.gather(*(converse(n) for n in range(300)))
    assert replies == [f"{list(cities.values())[n % 3]} booked." for n in range(300)]


def test_each_server_has_its_own_agent_and_stops_cleanly() -> None:
    with serve_in_background() as url:
        host, port = url.removeprefix("http://").split(":")
        assert host == "127.0.0.1"
        assert int(port) > 0
        with pytest.raises(OSError), serve_in_background(port=int(port)):
            pass
    with pytest.raises(OSError), socket.create_connection((host, int(port)), timeout=2):
        pass
