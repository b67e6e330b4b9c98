"""Uploading and validating datasets: the shape line of ``assay validate``, the mapping, errors
with row and column, the preview; uploads stay in their folder and under the size limit."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from assay.web import Settings, create_app
from assay.web.settings import store_folder

# SPEC §3's example shape: 9 rows, 2 conversations. Session s1's turn ids come in reverse
# file order, with 10 after 9 (numbers compare as numbers).
MULTI_TURN_CSV = """session_id,turn_id,Question,Answer,expected_tool_calls
s1,10,And the total?,5760,
s1,9,And 2020?,4480,"[{""name"": ""lookup"", ""args"": {""year"": 2020}}]"
s1,1,Revenue in 2021?,5120,"[{""name"": ""lookup""}]"
s2,1,Hello,,
s2,2,Book a hotel in Basel,,
s2,3,The cheapest one,,
s2,4,For two nights,,
s2,5,Thanks,,
s2,6,Bye,,
"""
SHAPE = "MULTI-TURN \u2014 9 rows, 2 conversations (grouped by session_id)"


def upload(client: TestClient, name: str, data: bytes) -> dict[str, object]:
    response = client.post("/api/datasets", files={"file": (name, data, "text/csv")})
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


def test_a_multi_turn_file_gets_the_exact_shape_line_mapping_and_turns_in_order(
    client: TestClient, tmp_path: Path
) -> None:
    body = upload(client, "revenue.csv", MULTI_TURN_CSV.encode())
    check = body["check"]
    assert isinstance(check, dict)
    assert check["shape"] == SHAPE
    assert check["columns"] == {
        "session_id": "session_id",
        "turn_id": "turn_id",
        "question": "Question",
        "answer": "Answer",
        "expected_tool_calls": "expected_tool_calls",
    }
    assert check["errors"] == []
    first = check["preview_conversations"][0]
    assert first["session_id"] == "s1"
    assert [t["turn_id"] for t in first["turns"]] == ["1", "9", "10"]
    assert first["turns"][1]["expected_tools"] == [{"name": "lookup", "args": {"year": 2020}}]
    assert check["preview"][0] == [2, ["s1", "10", "And the total?", "5760", ""]]
    page = client.get(f"/datasets/{body['id']}")
    assert SHAPE in page.text
    assert "Revenue in 2021?" in page.text


def test_errors_name_their_row_and_column(client: TestClient) -> None:
    bad = "Question,expected_tool_calls\nfine,\nbroken,[{name: oops\n"
    check = upload(client, "bad.csv", bad.encode())["check"]
    assert isinstance(check, dict)
    assert check["shape"] is None
    (error,) = check["errors"]
    assert (error["row"], error["column"]) == (3, "expected_tool_calls")
    assert "JSON" in error["message"] or "json" in error["message"]
    page = client.get(f"/datasets/{upload(client, 'bad.csv', bad.encode())['id']}")
    assert "Not usable" in page.text and "expected_tool_calls" in page.text


def test_warnings_are_shown(client: TestClient) -> None:
    near_miss = "Session_ID,Question,Answer\na,hi,hello\na,bye,ciao\n"
    check = upload(client, "near.csv", near_miss.encode())["check"]
    assert isinstance(check, dict)
    assert check["shape"] == "SINGLE-TURN \u2014 2 rows"
    assert any("session_id" in w for w in check["warnings"])


def test_an_upload_cannot_leave_its_folder(client: TestClient, settings: Settings) -> None:
    body = upload(client, "../../../outside.csv", b"Question\nhi\n")
    assert body["name"] == "outside.csv"
    stored = list(settings.uploads_dir.rglob("outside.csv"))
    assert len(stored) == 1
    assert stored[0].parent.parent == settings.uploads_dir
    assert not (settings.uploads_dir.parent.parent / "outside.csv").exists()
    assert stored[0].stat().st_mode & 0o111 == 0  # never executable
    for bad_id in ("..", "../x", "0123456789ab/../..", "zzzzzzzzzzzz"):
        assert client.get(f"/api/datasets/{bad_id}").status_code == 404


def test_only_dataset_files_are_accepted(client: TestClient, settings: Settings) -> None:
    for name in ("agent.py", "suite.yaml", "noext"):
        refused = client.post("/api/datasets", files={"file": (name, b"print(1)", "text/plain")})
        assert refused.status_code == 400
        assert ".csv" in refused.json()["detail"]
    assert not settings.uploads_dir.exists() or not any(settings.uploads_dir.iterdir())


def test_a_file_over_the_limit_is_refused_and_not_kept(store_url: str, tmp_path: Path) -> None:
    small = Settings(store_url=store_url, root=tmp_path, max_upload_bytes=1 << 20)
    with TestClient(create_app(small), base_url="http://127.0.0.1:8484") as client:
        big = b"Question\n" + b"x" * (2 << 20) + b"\n"
        refused = client.post("/api/datasets", files={"file": ("big.csv", big, "text/csv")})
        assert refused.status_code == 413
        assert "larger than 1 MiB" in refused.json()["detail"]
        page = client.post("/datasets", files={"file": ("big.csv", big, "text/csv")})
        assert page.status_code == 413 and "larger than 1 MiB" in page.text
    assert not small.uploads_dir.exists() or not any(small.uploads_dir.iterdir())


def test_uploads_live_beside_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'data' / 'runs.db'}"
    assert store_folder(url) == (tmp_path / "data").resolve()
    assert Settings(store_url=url).uploads_dir == (tmp_path / "data" / "uploads").resolve()
