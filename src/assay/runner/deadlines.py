"""Turn deadlines on one shared timer per event loop: ``assay.net.deadlines``, where an HTTP
request's timeout waits too (``send_request``)."""

from assay.net.deadlines import Deadlines, TurnDeadline, turn_deadline

__all__ = ["Deadlines", "TurnDeadline", "turn_deadline"]
