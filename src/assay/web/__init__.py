"""The dashboard (``assay serve``): a FastAPI application over the result store.

``create_app(Settings(...))`` builds it; FastAPI is imported only when it is asked for, so
``import assay.web`` (and the run worker in ``assay.web._worker``) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.web.settings import Settings

if TYPE_CHECKING:
    from assay.web.app import create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from assay.web.app import create_app

        return create_app
    raise AttributeError(name)
