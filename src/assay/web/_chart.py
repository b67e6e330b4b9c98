"""The runs page's chart: pass rate and each dimension's mean score over a suite's latest runs,
laid out here and drawn as SVG by the template (no script, no network)."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.store.queries import RunRow

WIDTH, HEIGHT = 880, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 40
PALETTE = ["#1f6feb", "#8250df", "#bf8700", "#1a7f37", "#cf222e", "#0a7ea4", "#9a6700", "#6e7781"]
MAX_SERIES = len(PALETTE)


@dataclass
class Point:
    x: float
    y: float
    label: str  # the tooltip: run, date and value


@dataclass
class Series:
    name: str
    colour: str
    points: list[Point] = field(default_factory=list)
    dashed: bool = False

    @property
    def path(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass
class Chart:
    width: int
    height: int
    series: list[Series]
    y_ticks: list[tuple[float, str]]  # (y, label)
    x_ticks: list[tuple[float, str]]  # (x, label)
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


def _x(i: int, n: int) -> float:
    span = WIDTH - LEFT - RIGHT
    return LEFT + (span / 2 if n == 1 else span * i / (n - 1))


def _y(value: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - max(0.0, min(1.0, value)))


def build_chart(history: list[RunRow]) -> Chart | None:
    """The chart of ``history`` (oldest first); None when no run has a pass rate."""
    if not any(r.pass_fraction is not None for r in history):
        return None
    n = len(history)
    rate = Series("pass rate", PALETTE[0])
    dimensions: dict[str, Series] = {}
    for row in history:
        for dim in sorted((row.summary.dimensions if row.summary else {}).keys()):
            if dim not in dimensions and len(dimensions) < MAX_SERIES - 1:
                dimensions[dim] = Series(dim, PALETTE[len(dimensions) + 1], dashed=True)
    for i, row in enumerate(history):
        x = _x(i, n)
        stamp = f"run {row.info.id[:12]}, {row.info.started_at[:16].replace('T', ' ')}"
        if row.pass_fraction is not None:
            rate.points.append(
                Point(x, _y(row.pass_fraction), f"{stamp}: pass rate {row.pass_fraction:.1%}")
            )
        for dim, series in dimensions.items():
            mean = (row.summary.dimensions.get(dim) or {}).get("mean") if row.summary else None
            if isinstance(mean, int | float):
                series.points.append(Point(x, _y(float(mean)), f"{stamp}: {dim} {mean:.2f}"))
    step = max(1, n // 8)
    x_ticks = [(_x(i, n), history[i].info.started_at[5:10]) for i in range(0, n, step)]
    y_ticks = [(_y(v / 4), f"{v * 25}%") for v in range(5)]
    return Chart(WIDTH, HEIGHT, [rate, *dimensions.values()], y_ticks, x_ticks)
