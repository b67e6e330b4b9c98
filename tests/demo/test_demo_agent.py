"""TravelAgent in process: replies, memory, token usage, lost sessions, the flaws' edges."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from assay.demo import TravelAgent
from assay.errors import SessionLost


@pytest.fixture
def agent() -> TravelAgent:
    return TravelAgent()


def say(agent: TravelAgent, session_id: str, *queries: str) -> list[dict[str, Any]]:
    return [agent.respond(q, session_id) for q in queries]


def texts(replies: list[dict[str, Any]]) -> list[str]:
    return [r["response"] for r in replies]


def test_token_usage_counts_the_conversation_so_far(agent: TravelAgent) -> None:
    first, second = say(agent, "s", "What time is my upcoming flight?", "Any museums in Basel?")
    # 6 query words; "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM." is 9 words
    assert first["token_usage"] == {"prompt_tokens": 6, "completion_tokens": 9, "total_tokens": 15}
    # 6 + 9 earlier words + 4; "In Basel I recommend: Kunstmuseum Basel (ID 2), Fondation
    # Beyeler (ID 9)." is 12 words
    assert second["token_usage"] == {
        "prompt_tokens": 19,
        "completion_tokens": 12,
        "total_tokens": 31,
    }
    # another session starts from nothing
    (other,) = say(agent, "t", "hello")
    assert other["token_usage"]["prompt_tokens"] == 1


def test_a_forgotten_session_is_lost(agent: TravelAgent) -> None:
    say(agent, "s", "hello")
    assert agent.forget("s") is True
    assert agent.forget("s") is False
    assert agent.forget("never-seen") is False
    with pytest.raises(SessionLost, match="'s' was deleted"):
        agent.respond("hello", "s")
    assert texts(say(agent, "t", "What time is my upcoming flight?")) == [
        "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM."
    ]


def test_flight_change_cancel_and_return(agent: TravelAgent) -> None:
    replies = say(
        agent,
        "s",
        "Change my flight to June 14",
        "What time is my upcoming flight?",
        "Cancel my flight",
        "When is my upcoming flight?",
    )
    assert texts(replies) == [
        "Your ticket is now on LX0112 CDG→BSL at 12:09 PM on 2025-06-14, seat 17B.",
        "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM.",
        "Your ticket 7240005432906569 for LX0112 CDG→BSL is cancelled.",
        "Your upcoming flight is LX0113 BSL→CDG at 4:25 PM.",
    ]
    assert replies[0]["tool_invocations"][-1]["args"] == {
        "ticket_no": "7240005432906569",
        "new_flight_id": 301,  # day index 2 (June 14), leg 1
    }
    (fresh,) = say(agent, "t", "When is my return flight?")
    assert fresh["response"] == "Your return flight is LX0113 BSL→CDG at 4:25 PM on 2025-06-19."


def test_no_earlier_flight_asks_which(agent: TravelAgent) -> None:
    (reply,) = say(agent, "s", "Move me to an earlier flight")
    assert reply["response"] == (
        "Which flight would you like instead? Flights on 2025-06-12: "
        "LX0112 CDG→BSL at 12:09 PM, LX0114 CDG→BSL at 6:40 PM."
    )
    assert [i["name"] for i in reply["tool_invocations"]] == [
        "fetch_user_flight_information",
        "search_flights",
    ]


def test_booking_by_name_and_cancelling(agent: TravelAgent) -> None:
    replies = say(
        agent,
        "s",
        "Book the Hilton",
        "Book the Kunstmuseum",
        "Cancel my hotel",
        "Cancel my hotel",
        "book hotel 99",
    )
    assert texts(replies) == [
        "Hilton Basel booked.",
        "Kunstmuseum Basel booked.",
        "Your booking at Hilton Basel is cancelled.",
        "You have no hotel booking to cancel.",
        "I couldn't book that: no hotel with ID 99.",
    ]
    assert replies[1]["tool_invocations"][-1]["args"] == {"recommendation_id": 2}
    assert replies[4]["tool_invocations"][0]["error"] == "no hotel with ID 99"


def test_default_city_is_basel_then_the_last_city_searched(agent: TravelAgent) -> None:
    replies = say(agent, "s", "Any museums nearby?", "Hotels in Geneva", "What can I see?")
    assert [r["tool_invocations"][0]["args"]["location"] for r in replies] == [
        "Basel",
        "Geneva",
        "Geneva",
    ]


def test_fixed_replies(agent: TravelAgent) -> None:
    assert texts(say(agent, "s", "Hello", "thanks!", "Sing me a song")) == [
        "Hello! I can help with your flights, hotels, rental cars, excursions and policies.",
        "You're welcome. Have a good trip!",
        "Sorry, I can't help with that. I can help with your flights, hotels, rental cars, "
        "excursions and policies.",
    ]


def test_hotel_preference_lasts_three_turns_then_is_forgotten(agent: TravelAgent) -> None:
    replies = texts(
        say(
            agent,
            "s",
            "I like cheap hotels.",
            "Hotels in Geneva?",
            "Hotels in Paris?",
            "Hotels in Paris?",
        )
    )
    assert replies[1] == (
        "Hotels in Geneva, cheapest first: Ibis Geneva Centre (ID 6, CHF 139/night), "
        "Novotel Geneva Centre (ID 9, CHF 189/night), "
        "InterContinental Geneva (ID 7, CHF 450/night)."
    )
    assert replies[2].startswith("Hotels in Paris, cheapest first: Novotel Paris Gare de Lyon")
    # turn 4: the preference from turn 1 is gone (flaw 1)
    assert replies[3] == (
        "Hotels in Paris: Pullman Paris Montparnasse (ID 10, CHF 260/night), "
        "Novotel Paris Gare de Lyon (ID 11, CHF 175/night), "
        "Le Meurice Paris (ID 13, CHF 980/night)."
    )


@pytest.mark.parametrize(("fillers", "seat", "sent"), [(1, "12A", True), (2, "17B", False)])
def test_window_seat_preference_window(
    agent: TravelAgent, fillers: int, seat: str, sent: bool
) -> None:
    queries = ["I prefer a window seat."] + ["hello"] * fillers + ["Move me to the later flight."]
    *_, change = say(agent, "s", *queries)
    assert (
        change["response"]
        == f"Your ticket is now on LX0114 CDG→BSL at 6:40 PM on 2025-06-12, seat {seat}."
    )
    assert ("seat_preference" in change["tool_invocations"][-1]["args"]) is sent


def test_turns_from_many_threads_stay_in_their_sessions(agent: TravelAgent) -> None:
    results: dict[int, list[str]] = {}

    def converse(n: int) -> None:
        city = ["Basel", "Zurich", "Geneva"][n % 3]
        results[n] = texts(
            say(agent, f"s{n}", f"Cheap hotels in {city}", "Book the cheapest hotel.")
        )

    threads = [threading.Thread(target=converse, args=(n,)) for n in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    booked = {
        "Basel": "Holiday Inn Basel",
        "Zurich": "Motel One Zurich",
        "Geneva": "Ibis Geneva Centre",
    }
    for n, replies in results.items():
        assert replies[1] == f"{booked[['Basel', 'Zurich', 'Geneva'][n % 3]]} booked."
    assert len(results) == 30
