"""The travel agent's understanding of a question: keywords and regular expressions, no model.

``parse(query)`` returns a ``Parsed``: one ``Intent`` plus the details the skills need
(cities in order of mention, a date, a flight number, an ID, price words, keywords,
stated preferences). The first matching rule wins, in this order: policy question,
cancel, change a flight, book, my flight, search flights, hotels, car rentals, things to
do, a stated preference on its own, greeting, thanks, and otherwise the fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum

from assay.demo.data import CITIES, TODAY


class Intent(StrEnum):
    POLICY = "policy"
    CANCEL = "cancel"
    CHANGE_FLIGHT = "change_flight"
    BOOK = "book"
    FLIGHT_INFO = "flight_info"
    SEARCH_FLIGHTS = "search_flights"
    SEARCH_HOTELS = "search_hotels"
    SEARCH_CARS = "search_cars"
    SEARCH_EXCURSIONS = "search_excursions"
    PREFERENCE = "preference"
    GREETING = "greeting"
    THANKS = "thanks"
    FALLBACK = "fallback"


@dataclass(frozen=True)
class Parsed:
    intent: Intent
    words: frozenset[str]  # lower-case word tokens, for recognising names
    kind: str | None = None  # what the question is about: hotel, car, excursion or flight
    cities: tuple[str, ...] = ()  # canonical city names, in order of mention
    from_city: str | None = None  # a city written right after "from"
    date: str | None = None  # YYYY-MM-DD
    next_day: bool = False
    flight_no: str | None = None
    shift: str | None = None  # "later" or "earlier"
    return_trip: bool = False
    item_id: int | None = None
    ordinal: str | None = None  # "cheapest" or "first"
    cheap: bool = False
    price_tier: str | None = None
    keywords: str | None = None
    policy_topic: str | None = None
    prefs: tuple[tuple[str, str], ...] = ()  # stated preferences: ("seat", "window"), ...

    @property
    def city(self) -> str | None:
        return self.cities[0] if self.cities else None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ALIASES = {name.lower(): name for name in CITIES} | {
    "zürich": "Zurich",
    "zuerich": "Zurich",
    "genève": "Geneva",
    "geneve": "Geneva",
    "genf": "Geneva",
    "bâle": "Basel",
    "basle": "Basel",
}
_CITY_ALT = "|".join(sorted(map(re.escape, _ALIASES), key=len, reverse=True))
_CITY = _rx(rf"\b(?:{_CITY_ALT})\b")
_CODE = re.compile(r"\b(?:" + "|".join(CITIES.values()) + r")\b")  # upper case only
_FROM_CITY = _rx(rf"\bfrom\s+(?:the\s+)?({_CITY_ALT})\b")
_CODE_CITY = {code: city for city, code in CITIES.items()}

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_ISO_DATE = _rx(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = _rx(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = _rx(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}")
_FLIGHT_NO = _rx(r"\blx\s?(\d{2,4})\b")
_ITEM_ID = _rx(
    r"(?:\bid\b|#|\bnumber\b)\s*:?\s*(\d+)"
    r"|\b(?:hotel|car|rental|excursion|recommendation|option)\s+(\d+)\b"
)

_KINDS = {
    "hotel": _rx(r"\bhotels?\b|\bstay\b|\baccommodations?\b|\brooms?\b"),
    "car": _rx(r"\bcars?\b|\brentals?\b|\bvehicles?\b|\bhire\b"),
    "excursion": _rx(
        r"\bexcursions?\b|\btours?\b|\bmuseums?\b|\bthings? to do\b|\bsightseeing\b"
        r"|\battractions?\b|\bactivit(?:y|ies)\b|\brecommend\w*|\bvisit\b|\bto see\b"
        r"|\bwhat (?:can|should) (?:i|we) (?:do|see)\b"
    ),
    "flight": _rx(r"\bflights?\b|\bfly\b|\bplanes?\b|\btickets?\b"),
}
_KEYWORDS = {
    "museum": _rx(r"\bmuseums?\b"),
    "art": _rx(r"\bart\b|\bgaller(?:y|ies)\b"),
    "history": _rx(r"\bhistor(?:y|ic|ical)\b"),
    "church": _rx(r"\bchurch(?:es)?\b|\bcathedrals?\b"),
    "boat": _rx(r"\bboats?\b|\bcruises?\b|\bferry\b"),
    "hiking": _rx(r"\bhik(?:e|es|ing)\b"),
    "outdoor": _rx(r"\boutdoors?\b|\bnature\b"),
    "lake": _rx(r"\blakes?\b"),
    "view": _rx(r"\bviews?\b"),
}
_TIERS = {
    "luxury": _rx(r"\bluxur(?:y|ious)\b|\b(?:5|five)[- ]star\b"),
    "upscale": _rx(r"\bupscale\b"),
    "midscale": _rx(r"\bmid[- ]?(?:scale|range|priced)\b"),
    "budget": _rx(r"\bbudget\b(?![- ]friendly)"),
}
_CHEAP = _rx(
    r"\bcheap(?:er|est)?\b|\baffordable\b|\binexpensive\b|\blow[- ]cost\b|budget[- ]friendly"
)
_CHEAPEST = _rx(r"\bcheapest\b|\blowest price\b|\bleast expensive\b")
_FIRST = _rx(r"\bfirst\b|\btop\b")

_POLICY_TOPICS = {
    "baggage": _rx(r"\bbaggage\b|\bluggage\b|\bbags?\b|\bsuitcases?\b|\bcarry[- ]on\b"),
    "pets": _rx(r"\bpets?\b|\bdogs?\b|\bcats?\b"),
    "check-in": _rx(r"\bcheck[- ]?in\b"),
    "cancellation": _rx(r"\bcancellation\b|\brefund(?:s|able)?\b"),
}
_CHANGE_WORD = _rx(r"\b(?:change|changes|changing|rebook\w*)\b")
_COST_WORD = _rx(r"\bfees?\b|\bpolic(?:y|ies)\b|\bcosts?\b|\bfree\b|\bcharge\b")
_GENERAL_POLICY = _rx(r"\bpolic(?:y|ies)\b|\bfees?\b|\brules\b")

_CANCEL = _rx(r"\bcancel\b")
_CHANGE = _rx(r"\b(?:change|move|switch|rebook|reschedule|swap)\b")
_BOOK = _rx(r"\b(?:book|reserve)\b")
_MY_FLIGHT = _rx(
    r"\bmy (?:\w+ ){0,2}?(?:flights?|tickets?)\b|\bwhen do i (?:fly|leave|depart)\b"
    r"|\bflight (?:time|details)\b"
)
_GREETING = _rx(
    r"^\W*(?:hi|hello|hey|hallo|bonjour|gr[üu]ezi|good (?:morning|afternoon|evening))\b"
)
_THANKS = _rx(r"\bthanks?\b|\bthank you\b|\b(?:good)?bye\b")
_PREFER = _rx(
    r"\bi(?:'d| would)?\s+(?:really\s+|usually\s+|always\s+)?(?:like|prefer|love|want)\b"
    r"|\bi always\b|\bmy preference\b"
)
_SEAT = {"window": _rx(r"\bwindow\b"), "aisle": _rx(r"\baisle\b")}
_LATER = _rx(r"\blater\b|\bevening\b")
_EARLIER = _rx(r"\bearlier\b|\bmorning\b")
_NEXT_DAY = _rx(r"\bnext day\b|\bday after\b|\bday later\b|\bfollowing day\b")
_RETURN = _rx(r"\breturn\b|\bway back\b")
_WORD = re.compile(r"\w+")


def _cities(text: str) -> tuple[str, ...]:
    found = [(m.start(), _ALIASES[m.group(0).lower()]) for m in _CITY.finditer(text)]
    found += [(m.start(), _CODE_CITY[m.group(0)]) for m in _CODE.finditer(text)]
    ordered: list[str] = []
    for _, city in sorted(found):
        if city not in ordered:
            ordered.append(city)
    return tuple(ordered)


def _date(text: str) -> str | None:
    lowered = text.lower()
    if "tomorrow" in lowered:
        return (TODAY + timedelta(days=1)).isoformat()
    if "today" in lowered:
        return TODAY.isoformat()
    try:
        if m := _ISO_DATE.search(text):
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        if m := _MONTH_DAY.search(text):
            return date(TODAY.year, _MONTHS.index(m[1][:3].lower()) + 1, int(m[2])).isoformat()
        if m := _DAY_MONTH.search(text):
            return date(TODAY.year, _MONTHS.index(m[2][:3].lower()) + 1, int(m[1])).isoformat()
    except ValueError:  # "June 31"
        return None
    return None


def _first_kind(text: str) -> str | None:
    hits = [(m.start(), kind) for kind, rx in _KINDS.items() if (m := rx.search(text))]
    return min(hits)[1] if hits else None


def _policy_topic(text: str) -> str | None:
    for topic, rx in _POLICY_TOPICS.items():
        if rx.search(text):
            return topic
    if _CHANGE_WORD.search(text) and _COST_WORD.search(text):
        return "changes"
    return "general" if _GENERAL_POLICY.search(text) else None


def _prefs(
    text: str, kind: str | None, cheap: bool, tier: str | None
) -> tuple[tuple[str, str], ...]:
    prefs = [("seat", seat) for seat, rx in _SEAT.items() if rx.search(text)][:1]
    if _PREFER.search(text) and kind == "hotel" and (cheap or tier == "luxury"):
        prefs.append(("hotel", "cheap" if cheap else "luxury"))
    return tuple(prefs)


def _intent(text: str, p: Parsed) -> Intent:
    if p.policy_topic:
        return Intent.POLICY
    if _CANCEL.search(text):
        return Intent.CANCEL
    if _CHANGE.search(text) and (
        p.kind == "flight" or p.flight_no or p.shift or p.date or p.next_day
    ):
        return Intent.CHANGE_FLIGHT
    if _BOOK.search(text):
        return Intent.BOOK
    if _MY_FLIGHT.search(text):
        return Intent.FLIGHT_INFO
    searches = {
        "flight": Intent.SEARCH_FLIGHTS,
        "hotel": Intent.SEARCH_HOTELS,
        "car": Intent.SEARCH_CARS,
        "excursion": Intent.SEARCH_EXCURSIONS,
    }
    if p.kind in searches:
        return searches[p.kind]
    if p.prefs:
        return Intent.PREFERENCE
    if _GREETING.search(text):
        return Intent.GREETING
    if _THANKS.search(text):
        return Intent.THANKS
    return Intent.FALLBACK


def parse(query: str) -> Parsed:
    """Read one question; pure and cheap (a few dozen regular-expression searches)."""
    text = query.strip()
    kind = _first_kind(text)
    cheap = bool(_CHEAP.search(text))
    tier = next((name for name, rx in _TIERS.items() if rx.search(text)), None)
    found_keywords = sorted(
        (m.start(), word) for word, rx in _KEYWORDS.items() if (m := rx.search(text))
    )
    flight_no = _FLIGHT_NO.search(text)
    item_id = _ITEM_ID.search(text)
    from_city = _FROM_CITY.search(text)
    parsed = Parsed(
        intent=Intent.FALLBACK,
        words=frozenset(_WORD.findall(text.lower())),
        kind=kind,
        cities=_cities(text),
        from_city=_ALIASES[from_city[1].lower()] if from_city else None,
        date=_date(text),
        next_day=bool(_NEXT_DAY.search(text)),
        flight_no=f"LX{int(flight_no[1]):04d}" if flight_no else None,
        shift="later" if _LATER.search(text) else "earlier" if _EARLIER.search(text) else None,
        return_trip=bool(_RETURN.search(text)),
        item_id=int(item_id[1] or item_id[2]) if item_id else None,
        ordinal="cheapest" if _CHEAPEST.search(text) else "first" if _FIRST.search(text) else None,
        cheap=cheap,
        price_tier=tier,
        keywords=" ".join(word for _, word in found_keywords) or None,
        policy_topic=_policy_topic(text),
        prefs=_prefs(text, kind, cheap, tier),
    )
    return replace(parsed, intent=_intent(text, parsed))
