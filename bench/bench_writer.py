"""CPU the result writer spends per stored result: parsing each handed-over result JSON
(``assay.runner.writer._decode``) and storing it in batches (``store_batch``), on SQLite and
on PostgreSQL, without the pipe or an agent.

The results are built with ``encode_result`` in the shape a plain ``assay run`` against
``bench/mock_agent.py`` stores (single-turn: one tool call, the ``equality`` metric, token
usage), each with its own name. Each measurement is a fresh interpreter storing all N
results into a fresh store (a new SQLite file; a new PostgreSQL schema) in one of two ways:
``direct:B`` decodes and stores them with ``store_batch`` in batches of B, in that
interpreter (its CPU time around the writing only); ``writer:R`` hands them to a forked
``ResultWriter`` at R results a second, 10 ms apart, as a run's event loop would (the
writer process's CPU time, its batching included). ``--baseline-src DIR``
also runs another source tree (``git archive REV src | tar -x -C /tmp/base``), interleaved
with this one, so load on the machine hits both alike; figures are medians of ``--repeat``.

    python bench/bench_writer.py --baseline-src /tmp/base/src            # SQLite and PostgreSQL
    python bench/bench_writer.py --n 5000 --repeat 3 --modes direct:20,writer:1000 --only sqlite

``--profile N`` instead runs, in this interpreter, what the forked writer does with N results
(SQLite), deterministically, for callgrind: hand-overs of 64 results made as the run process
makes them (in another process, with the rows it proves if the tree proves any: only the
writer's work is counted), read and decoded three at a time (batches of 192) and stored with
``store_batch``, the writer's gc settings and adapters on. The slope of two N is the
writer's instructions per result (``--src`` runs another tree):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=cg.1000 \
        python bench/bench_writer.py --profile 1000       # and 3000: (I3000 - I1000) / 2000

``--decode-only`` with ``--profile``: the same hand-overs read and decoded (``_decode``),
nothing stored; the slope against the full profile's is the store's share.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

PG_ADMIN = "postgresql://{role}@127.0.0.1:5432/test"
PG_ROLES = ("postgres", "root")


def write_payloads(path: Path, n: int, turns: int) -> None:
    """N encoded results in the shape ``assay run`` stores: a ``marshal`` list of (JSON
    bytes, the rows handed over with it or None: None from a tree that hands none)."""
    import marshal

    from assay.results import TurnResult, rollup_multi_turn, single_turn_result
    from assay.results.models import MetricResult, TokenUsage, ToolInvocation
    from assay.runner.writer import encode_result

    def turn(i: int, t: int) -> TurnResult:
        return TurnResult(
            turn_index=t,
            input=f"question {i}.{t}?",
            response="42",
            ground_truth="42",
            tool_calls=["lookup"],
            tool_invocations=[ToolInvocation(name="lookup", args={"q": "x"}, result=42, bytes=2)],
            metric_results=[
                MetricResult(
                    metric_name="equality",
                    score=1.0,
                    passed=True,
                    evaluation_time_ms=0,
                    dimension="comparison",
                )
            ],
            passed=i % 7 != 0,
            execution_time_ms=27,
            token_usage=TokenUsage(prompt_tokens=12, completion_tokens=1, total_tokens=13),
        )

    stamp = "2026-11-30T16:15:12.798+00:00"
    encoded = []
    for i in range(n):
        if turns == 1:
            result = single_turn_result(f"data:row{i + 2}", turn(i, 0), stamp)
        else:
            parts = [turn(i, t) for t in range(turns)]
            result = rollup_multi_turn(f"data:s{i}", parts, stamp)
        made = encode_result(result)
        payload, rows = made[1], made[2] if len(made) > 2 else None
        encoded.append((payload.encode() if isinstance(payload, str) else payload, rows))
    path.write_bytes(marshal.dumps(encoded))


def read_payloads(path: Path) -> list[tuple[bytes, Any]]:
    import marshal

    payloads: list[tuple[bytes, Any]] = marshal.loads(path.read_bytes())
    return payloads


def takes_rows(writer: Any) -> bool:
    """Whether the tree's writer takes rows handed over (``ResultWriter.add``'s third)."""
    import inspect

    return len(inspect.signature(writer.ResultWriter.add).parameters) > 3


def child(src: str, url: str, payloads: str, mode: str) -> None:
    """Store every payload through the writer's path; print the CPU seconds it took.
    ``mode`` "direct:B": ``_decode`` and ``store_batch`` here, in batches of B (CPU of this
    process while writing); "writer:R": a forked ``ResultWriter`` handed R results a
    second, 10 ms apart (CPU of the writer process, from its rusage once it is joined)."""
    sys.path.insert(0, src)
    import resource
    import time

    from assay.results.models import RunInfo
    from assay.runner import writer as writing
    from assay.runner.writer import ResultWriter, _decode, store_batch
    from assay.store import open_store

    lines = read_payloads(Path(payloads))
    if not takes_rows(writing):  # another tree: the JSON only
        lines = [(payload, None) for payload, _ in lines]
    store = open_store(url)
    store.create_run(RunInfo(id="bench", suite_name="s", started_at="t", assay_version="0"))
    kind, _, figure = mode.partition(":")
    rows_of = getattr(sys.modules["assay.store._rows"], "prepared_of", None)
    if kind == "direct":
        batch = int(figure)
        start = time.process_time()
        for first in range(0, len(lines), batch):
            chunk = lines[first : first + batch]
            if rows_of is None:
                items = [(first + i, _decode(p)) for i, (p, _) in enumerate(chunk)]
            else:
                items = [
                    (first + i, _decode(p) if r is None else rows_of(p.decode(), r))
                    for i, (p, r) in enumerate(chunk)
                ]
            assert not store_batch(store, "bench", items)
        spent = time.process_time() - start
    else:
        texts = [(p, r) if rows_of else (p.decode(),) for p, r in lines]
        per_tick = max(1, int(figure) // 100)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        writer = ResultWriter(store.reopen, "bench", in_process=True)
        tick = time.monotonic()
        for first in range(0, len(texts), per_tick):
            for position in range(first, min(first + per_tick, len(texts))):
                writer.add(position, *texts[position])
            writer._flush()  # what the event loop's end of turn does
            tick += 0.01
            time.sleep(max(0.0, tick - time.monotonic()))
        writer.close()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    stored = sum(1 for _ in store.iter_results("bench"))
    assert stored == len(lines), (stored, len(lines))
    store.close()
    print(spent)


def profile(src: str, n: int, decode_only: bool = False) -> None:
    """The forked writer's work on ``n`` results, in this process, without the pipe or the
    clock: the same batches every time (for callgrind). ``decode_only``: the hand-overs
    read and decoded, nothing stored (the store's share is the difference)."""
    sys.path.insert(0, src)
    import gc
    import marshal
    import sqlite3

    from assay.results.models import RunInfo
    from assay.runner import writer
    from assay.store import open_store

    with tempfile.TemporaryDirectory() as folder:
        payloads, path = Path(folder) / "payloads.marshal", Path(folder) / "store.db"
        code = (  # in another process: only the writer's work is counted
            f"import sys; sys.path[:0] = [{src!r}, {str(Path(__file__).parent)!r}]; "
            "from pathlib import Path; from bench_writer import write_payloads, write_frames; "
            f"write_payloads(Path({str(payloads)!r}), {n}, 1); "
            f"write_frames(Path({str(payloads)!r}))"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
        chunks = marshal.loads(payloads.read_bytes())  # the hand-overs: bytes, copied
        store = open_store(f"sqlite:///{path}")
        store.create_run(RunInfo(id="bench", suite_name="s", started_at="t", assay_version="0"))
        store.close()
        pending = iter(chunks)
        handed = [0]

        class Inbox:
            def recv_bytes(self) -> bytes:
                try:
                    chunk = next(pending)
                except StopIteration:
                    raise EOFError from None
                handed[0] += 1
                return chunk

        def ready(_: float) -> bool:
            return handed[0] % 3 != 0 and handed[0] < len(chunks)

        gc.freeze()
        gc.set_threshold(writer.GC_THRESHOLD)
        from assay.store._bulk import bind_plainly

        bind_plainly()
        store = open_store(f"sqlite:///{path}")
        store.add_results("bench", [])  # the engine and its first connection
        inbox: Any = Inbox()
        more = True
        while more:
            batch: list[Any] = []
            more = writer._read_ready(inbox, batch, ready)
            if batch and not decode_only:
                assert not writer.store_batch(store, "bench", batch)
        store.close()
        stored = sqlite3.connect(path).execute("SELECT count(*) FROM assay_test_results")
        assert stored.fetchone()[0] == (0 if decode_only else n)


def write_frames(path: Path) -> None:
    """The payloads at ``path`` replaced by the hand-overs the run process makes of them,
    64 results each (with this tree's ``_frame``): a ``marshal`` list of bytes."""
    import marshal
    from array import array

    from assay.runner import writer

    texts = read_payloads(path)
    chunks = []
    for first in range(0, len(texts), 64):
        span = range(first, min(first + 64, len(texts)))
        if takes_rows(writer):  # positions, JSON, rows
            rows = [texts[i][1] for i in span]
            chunks.append(writer._frame(array("q", span), [texts[i][0] for i in span], rows))
        elif hasattr(writer, "_frame"):  # before: framed by lengths
            chunks.append(writer._frame(array("q", span), [texts[i][0] for i in span]))
        else:  # before that: split on a separator
            sep = b"\x1e"
            chunks.append(sep.join(b"%d %s" % (i, texts[i][0]) for i in span))
    path.write_bytes(marshal.dumps(chunks))


def pg_role() -> str:
    import psycopg

    for role in PG_ROLES:
        try:
            with psycopg.connect(PG_ADMIN.format(role=role), connect_timeout=5):
                return role
        except psycopg.Error:
            continue
    raise SystemExit("PostgreSQL at 127.0.0.1:5432 (database test) is not reachable")


def measure(src: str, backend: str, payloads: Path, mode: str, tmp: Path) -> float:
    """One fresh interpreter storing every payload into a fresh store: CPU s."""
    schema = None
    if backend == "sqlite":
        url = f"sqlite:///{tmp / uuid.uuid4().hex}.db"
    else:
        import psycopg

        role = pg_role()
        schema = f"assay_bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_ADMIN.format(role=role), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        url = f"postgresql+psycopg://{role}@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    try:
        code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); " + (
            "from bench_writer import child; child(*sys.argv[1:5])"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, src, url, str(payloads), mode],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise SystemExit(f"storing from {src} failed:\n{out.stderr}")
        return float(out.stdout.strip().splitlines()[-1])
    finally:
        for leftover in tmp.glob("*.db*"):  # 20,000 results are about 30 MB
            leftover.unlink()
        if schema is not None:
            import psycopg

            with psycopg.connect(PG_ADMIN.format(role=pg_role()), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=1, help="turns per result (1: single-turn)")
    parser.add_argument(
        "--modes",
        default="direct:100,writer:5000",
        help="direct:B (store_batch in batches of B), writer:R (a ResultWriter fed R/s)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["sqlite", "postgresql"])
    parser.add_argument("--baseline-src", help="another source tree to run interleaved")
    parser.add_argument("--profile", type=int, metavar="N", help="the writer's work, for callgrind")
    parser.add_argument("--src", help="with --profile: the source tree to run")
    parser.add_argument(
        "--decode-only", action="store_true", help="with --profile: decode, store nothing"
    )
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    if args.profile:
        profile(args.src or here, args.profile, args.decode_only)
        return
    trees = {"after": here}
    if args.baseline_src:
        trees = {"before": args.baseline_src, **trees}
    backends = [args.only] if args.only else ["sqlite", "postgresql"]
    modes = args.modes.split(",")
    cases = [(backend, mode) for mode in modes for backend in backends]
    spent: dict[tuple[str, str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        payloads = tmp / "payloads.marshal"
        write_payloads(payloads, args.n, args.turns)
        size = sum(len(p) for p, _ in read_payloads(payloads)) // args.n
        print(f"{args.n} results of {args.turns} turn(s), ~{size} bytes of JSON each")
        for _ in range(args.repeat):
            for backend, mode in cases:
                for tree, src in trees.items():
                    cpu = measure(src, backend, payloads, mode, tmp)
                    spent.setdefault((tree, backend, mode), []).append(cpu / args.n * 1e6)
    print(f"CPU us per result, medians of {args.repeat}")
    for backend, mode in cases:
        line = [f"{backend:10} {mode:12}"]
        for tree in trees:
            runs = spent[tree, backend, mode]
            each = ", ".join(f"{r:.0f}" for r in runs)
            line.append(f"{tree}: {statistics.median(runs):6.1f} (runs {each})")
        if len(trees) == 2:
            pairs = zip(spent["before", backend, mode], spent["after", backend, mode], strict=True)
            line.append(f"after/before {statistics.median(a / b for b, a in pairs):.2f}")
        print("  ".join(line))


if __name__ == "__main__":
    main()
