"""What the dashboard's routes share: the ``Dashboard`` state of one application, and the
``dashboard`` dependency that hands it to a route. Kept apart from ``app`` so that the
routes, which ``app`` imports to mount them, do not import ``app`` back."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from fastapi import Request

from assay.store import Store
from assay.store.queries import Facets, Queries
from assay.web._runs import Runs
from assay.web._uploads import Uploads
from assay.web.settings import Settings

FACETS_KEPT = 32  # finished runs whose filter values are remembered


@dataclass
class Dashboard:
    """Everything the routes share: one per application."""

    settings: Settings
    store: Store
    queries: Queries
    uploads: Uploads
    runs: Runs
    facets: dict[str, Facets] = field(default_factory=dict)
    facets_lock: threading.Lock = field(default_factory=threading.Lock)

    def run_facets(self, run_id: str, finished: bool) -> Facets:
        """The run's filter values; remembered once the run can no longer change."""
        with self.facets_lock:
            cached = self.facets.get(run_id)
        if cached is not None:
            return cached
        found = self.queries.facets(run_id)
        if finished:
            with self.facets_lock:
                if len(self.facets) >= FACETS_KEPT:
                    self.facets.pop(next(iter(self.facets)))
                self.facets[run_id] = found
        return found


def dashboard(request: Request) -> Dashboard:
    state: Dashboard = request.app.state.dashboard
    return state
