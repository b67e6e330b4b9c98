"""The built-in travel agent: a deterministic (no model, no API key), stateful assistant
for trying assay, with its own SQLite world, real tools and an HTTP server.

    from assay.demo import TravelAgent, create_app, serve_in_background

    TravelAgent().respond("What time is my upcoming flight?", session_id="s1")
    # {"response": "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM.", ...}

    with serve_in_background() as url:   # e.g. http://127.0.0.1:54321
        ...                               # POST {url}/chat, GET {url}/health

The world (``assay.demo.data``): one passenger flying LX0112 CDG→BSL on 2025-06-12 at
12:09 PM (ticket 7240005432906569) and back on LX0113 on 2025-06-19; flights between
Paris, Basel, Zurich, Geneva, Amsterdam, Frankfurt and London; hotels (Basel, cheapest
first: Holiday Inn Basel ID 8, Hyatt Regency Basel ID 3, Hilton Basel ID 1), car
rentals, things to do (Basel: Kunstmuseum Basel, Fondation Beyeler, ...) and policies.
When a question names no city the agent uses the last city searched in the session,
else Basel, the passenger's destination.

Tools: fetch_user_flight_information, search_flights, update_ticket_to_new_flight,
cancel_ticket, search_hotels, book_hotel, cancel_hotel, search_car_rentals,
book_car_rental, search_trip_recommendations, book_excursion, lookup_policy.

Flaws, on purpose, so that a demo run has failures to show:

1. **Forgets preferences.** A stated preference ("I like cheap hotels", "I prefer a
   window seat") lasts three turns counting the one it was stated in, then is gone:
   "I like cheap hotels." on turn 1 lists hotels cheapest first until turn 3, but on
   turn 4 "Find me a hotel in Zurich." lists them in ID order (no ", cheapest first").
2. **Price ties.** "Book the cheapest hotel." among hotels tied on the lowest price books
   the one with the higher ID, not the first listed: in Zurich Ibis Zurich City West
   (ID 4) and Motel One Zurich (ID 12) both cost CHF 149, and it books Motel One (ID 12).
3. **Sticky car-rental city.** A car-rental search uses the city of the session's
   previous search, if there was one, instead of the city the question names: after a
   hotel search in Basel, "I need a rental car in Zurich." lists Basel's cars. In a
   fresh session it searches the named city correctly.
4. **From/to order.** A flight search with two cities reads the first one named as the
   origin, whatever the wording: "Are there flights to Zurich from Geneva?" searches
   ZRH→GVA. "Flights from Paris to Basel" is right.
"""

from assay.demo.agent import TravelAgent
from assay.demo.server import create_app, serve_in_background

__all__ = ["TravelAgent", "create_app", "serve_in_background"]
