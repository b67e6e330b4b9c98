"""A redirect from ``http://host`` to ``https://host`` (default ports 80 and 443) keeps the
credentials, as requests and curl do: the same host, moved to TLS. Nothing else that changes
the scheme or the port does, an https request redirected to http least of all.

Checked on the chain's rule itself, not over loopback: the upgrade needs a server on ports
80 and 443 of one host with a certificate the client trusts, which a test cannot have without
privileges and a CA of its own. The loopback tests in ``test_redirects.py`` check that the
same rule (``Chain``) decides which hops are sent without credentials."""

from __future__ import annotations

import pytest
from yarl import URL

from assay.net.redirects import Chain

# (the hops of a chain, from the URL the request was sent to; whether each leaves the origin)
CHAINS = [
    (["http://api.example", "https://api.example/v2"], [False]),  # the upgrade: kept
    (["http://api.example:80/x", "https://api.example:443/x"], [False]),  # ports written
    (["http://API.example", "https://api.example"], [False]),  # a host's case is no change
    (["https://api.example", "http://api.example"], [True]),  # a downgrade: never
    (["http://api.example", "https://api.example", "http://api.example"], [False, True]),
    (["http://api.example", "https://api.example", "https://api.example/y"], [False, False]),
    (["http://api.example:8080", "https://api.example"], [True]),  # not port 80
    (["http://api.example", "https://api.example:8443"], [True]),  # not port 443
    (["http://api.example", "https://other.example"], [True]),  # another host
    (["http://api.example", "https://www.api.example"], [True]),  # a subdomain is another
    (["http://127.0.0.1:8001", "https://127.0.0.1:8001"], [True]),
    (["http://api.example", "http://other.example", "https://api.example"], [True, True]),
    (["http://api.example/a", "http://api.example/b"], [False]),  # within the origin
]


@pytest.mark.parametrize(("hops", "left"), CHAINS, ids=[" -> ".join(h) for h, _ in CHAINS])
def test_which_hops_leave_the_origin(hops: list[str], left: list[bool]) -> None:
    chain = Chain(URL(hops[0]))
    assert [chain.step(URL(hop)) for hop in hops[1:]] == left
