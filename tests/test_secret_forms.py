"""Secrets are masked in every form they take, in every output of a run.

Each test runs ``assay run`` as a user would, against agents on 127.0.0.1 that echo what
they were sent, and greps every output (the JSON, Markdown, JUnit and HTML reports, the
SQLite store's files, the judge cache's files, stdout and stderr) for each form of each
secret: as is, JSON-escaped, URL-encoded and HTML-escaped.
"""

from __future__ import annotations

import html
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from assay.config import ModelConfig
from assay.errors import ConfigError
from assay.models import api_key_for
from assay.net import reset_limiters
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import TurnRequest
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import ScriptedLLM, scripted_llm
from tests.targets.agent_server import AgentServer, agent_server

ASSAY = Path(sys.executable).parent / "assay"
REPORTS = ("r.json", "r.md", "r.xml", "r.html")


@pytest.fixture
def server() -> Iterator[AgentServer]:
    with agent_server() as s:
        yield s


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as s:
        yield s


def forms(secret: str) -> set[str]:
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        html.escape(secret),
        html.escape(secret, quote=False),
    }


def run(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, bytes]]:
    """``assay run ARGS`` writing every report format; the process and every output."""
    outs = [arg for name in REPORTS for arg in ("--out", name)]
    done = subprocess.run(
        [str(ASSAY), "run", *args, *outs],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )
    outputs = {"stdout": done.stdout.encode(), "stderr": done.stderr.encode()}
    for name in REPORTS:
        outputs[name] = (folder / name).read_bytes()
    for path in (folder / ".assay").glob("*"):  # assay.db, cache.db and their -wal files
        outputs[path.name] = path.read_bytes()
    assert "assay.db" in outputs, sorted(outputs)
    return done, outputs


def assert_nowhere(secret: str, outputs: dict[str, bytes]) -> None:
    for form in forms(secret):
        for name, data in outputs.items():
            assert form.encode() not in data, f"{form!r} in {name}"


def store_files(outputs: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in outputs.items() if name.startswith("assay.db")}


def report(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "r.json").read_text())
    return data


def test_header_secrets_with_quotes_backslashes_and_spaces(
    server: AgentServer, tmp_path: Path
) -> None:
    from_env = 'sk-"quo ted"\\back&<1234>'
    literal = "literal-x-auth-7781"
    (tmp_path / "suite.yaml").write_text(
        f"""
name: forms
target:
  http:
    url: {server.url}/echo
    headers: {{Authorization: "Bearer ${{FORMS_SECRET}}", X-Auth: {literal}}}
tests:
  - {{name: one, input: hello}}
  - {{name: two, turns: [{{input: a}}, {{input: b}}]}}
"""
    )
    done, outputs = run(tmp_path, "suite.yaml", env={"FORMS_SECRET": from_env})
    assert done.returncode == 0, done.stderr
    assert_nowhere(from_env, outputs)
    assert_nowhere(literal, outputs)
    # the agent did echo both (so the test tested something), and they were masked
    first = report(tmp_path)["results"][0]
    assert "Authorization=***" in first["agent_response"]
    assert "X-Auth=***" in first["agent_response"]
    config = report(tmp_path)["run"]["config"]["target"]["http"]
    assert config["headers"] == {"Authorization": "Bearer ${FORMS_SECRET}", "X-Auth": "***"}
    assert config.get("response", {}).get("token_usage", "$.token_usage") == "$.token_usage"


def test_a_harmless_path_named_token_usage_is_shown(server: AgentServer, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        f"""
name: paths
target:
  http:
    url: {server.url}/echo
    response: {{text: $.response, token_usage: $.token_usage, tool_invocations: null}}
    headers: {{X-Api-Key: k-123456789}}
tests: [{{name: one, input: hi}}]
"""
    )
    done, outputs = run(tmp_path, "suite.yaml")
    assert done.returncode == 0, done.stderr
    http = report(tmp_path)["run"]["config"]["target"]["http"]
    assert http["response"]["token_usage"] == "$.token_usage"
    assert http["headers"] == {"X-Api-Key": "***"}
    assert_nowhere("k-123456789", outputs)


PASSWORD = "pw-s3cret-99"


def run_with_password(server: AgentServer, folder: Path) -> dict[str, bytes]:
    url = server.url.replace("http://", f"http://alice:{PASSWORD}@") + "/echo"
    (folder / "suite.yaml").write_text("name: url\ntests: [{name: one, input: hi}]\n")
    done, outputs = run(folder, "suite.yaml", "--target", url)
    assert done.returncode == 0, done.stderr
    # aiohttp sent it as Basic auth, and the agent echoed that too
    basic = server.requests[0].headers["Authorization"]
    assert basic.startswith("Basic ")
    assert "Authorization=Basic ***" in report(folder)["results"][0]["agent_response"]
    run_info = report(folder)["run"]
    assert run_info["target"] == f"http:POST {url.replace(PASSWORD, '***')}"
    assert run_info["config"]["target_override"] == url.replace(PASSWORD, "***")
    return outputs


def test_a_password_in_the_target_url(server: AgentServer, tmp_path: Path) -> None:
    outputs = run_with_password(server, tmp_path)
    basic = server.requests[0].headers["Authorization"].split()[1]
    others = {k: v for k, v in outputs.items() if k not in store_files(outputs)}
    assert_nowhere(PASSWORD, others)
    assert_nowhere(basic, outputs)
    # the run record (runs.target, runs.config) is masked; see the next test for the rest
    assert b"alice:***@" in outputs["assay.db"] + outputs.get("assay.db-wal", b"")


def test_a_password_in_the_target_url_is_not_in_the_stored_inputs(
    server: AgentServer, tmp_path: Path
) -> None:
    assert_nowhere(PASSWORD, store_files(run_with_password(server, tmp_path)))


def test_keys_in_url_queries_of_the_target_and_the_judge(
    server: AgentServer, llm: ScriptedLLM, tmp_path: Path
) -> None:
    """A key written in a URL's query (``?api_key=``, ``?api-key=``) is sent, and masked
    everywhere else; harmless parameters stay."""
    target_key, judge_key = "sk-query-target-4711", "sk-query-judge-0815"
    llm.responder = lambda api, body: json.dumps({"reasoning": "fine", "score": 4})
    (tmp_path / "suite.yaml").write_text(
        f"""
name: queries
target: {{http: {{url: "{server.url}/echo?lang=en&api_key={target_key}"}}}}
judge: {{provider: openai, model: j, base_url: "{llm.base_url}?api-key={judge_key}"}}
tests: [{{name: one, input: hi, ground_truth: anything, metrics: [correctness]}}]
"""
    )
    done, outputs = run(tmp_path, "suite.yaml")
    assert done.returncode in (0, 1), done.stderr
    # the real URLs were sent, and the agent echoed its query back
    assert server.requests[0].query == {"lang": "en", "api_key": target_key}
    assert llm.requests[0].query == {"api-key": judge_key}
    assert_nowhere(target_key, outputs)
    assert_nowhere(judge_key, outputs)
    run_info = report(tmp_path)["run"]
    assert run_info["target"] == f"http:POST {server.url}/echo?lang=en&api_key=***"
    assert run_info["config"]["target"]["http"]["url"] == f"{server.url}/echo?lang=en&api_key=***"
    assert run_info["config"]["judge"]["base_url"] == f"{llm.base_url}?api-key=***"


def test_which_query_values_a_shown_url_masks() -> None:
    from assay.secrets import mask_url_credentials as shown

    assert shown("see https://h/v1?api-version=2024&token_type=bearer&sig=a%2Bb, or") == (
        "see https://h/v1?api-version=2024&token_type=bearer&sig=***, or"
    )
    assert (
        shown("https://h/c?lang=en&access_token=t.1#top")
        == "https://h/c?lang=en&access_token=***#top"
    )
    assert (
        shown("(https://h/c?monkey=1&X-Amz-Signature=ff)")
        == "(https://h/c?monkey=1&X-Amz-Signature=***)"
    )
    assert shown("https://h/c?api_key=${AGENT_KEY}") == "https://h/c?api_key=${AGENT_KEY}"  # a name
    assert shown("no URL?password=x") == "no URL?password=x"


# every name a query parameter holding a credential goes by (matched whole, in any case)
QUERY_CREDENTIALS = (
    *("api_key", "apikey", "api-key", "x-api-key", "key", "code", "access_token", "token"),
    *("refresh_token", "id_token", "session_token", "private_token", "auth", "secret"),
    *("client_secret", "password", "passwd", "pwd", "sslpassword", "sig", "signature"),
    *("x-amz-signature", "x-amz-credential", "x-amz-security-token"),
)
# ordinary parameters whose names hold a credential word, as a header's would
ORDINARY = "page_token=abc123&sort_key=date&keyword=paris&partition_key=p7&idempotency_key=i9"


@pytest.mark.parametrize("name", [*QUERY_CREDENTIALS, "API_KEY", "X-Amz-Signature", "Code"])
def test_a_query_parameter_named_as_a_credential_is_masked(name: str) -> None:
    from assay.secrets import mask_url_credentials as shown

    assert shown(f"see https://h/c?lang=en&{name}=v4lue-1234&x=1 now") == (
        f"see https://h/c?lang=en&{name}=***&x=1 now"
    )


def test_ordinary_query_parameters_with_credential_words_are_kept() -> None:
    from assay.secrets import Redactor, mask_url_credentials, url_secrets

    for text in (
        f"Next page: https://api.example.com/items?{ORDINARY}",
        "https://h/x?authMode=sso&tokens=3&keys=a,b&monkey=1&api_key_env=K&codes=4",
    ):
        assert mask_url_credentials(text) == text
    url = f"http://localhost:8000/chat?mode_key=default&{ORDINARY}"
    assert url_secrets(url) == []
    redactor = Redactor(url_secrets(url))
    assert redactor("The default answer is Paris") == "The default answer is Paris"
    assert redactor(url) == url


def test_a_short_query_secret_is_masked_in_urls_only() -> None:
    """A value under MIN_SECRET_LENGTH is not registered, as a header's is not: masking
    ``abc`` in any text would damage ordinary words."""
    from assay.secrets import Redactor, url_secrets

    redactor = Redactor(url_secrets("http://h/c?key=abc&token=long-enough-1"))
    assert redactor("abc and long-enough-1, http://h/c?key=abc&token=long-enough-1") == (
        "abc and ***, http://h/c?key=***&token=***"
    )


def test_ordinary_query_parameters_are_kept_in_replies_ground_truths_and_config(
    server: AgentServer, tmp_path: Path
) -> None:
    """An agent URL with ``?mode_key=default`` registers no secret: its replies keep the
    word, and the parameters stay in the URL, the ground truth and the run's config."""
    link = f"Next page: https://api.example.com/items?{ORDINARY}"
    url = f"{server.url}/echo?mode_key=default&lang=en"
    (tmp_path / "suite.yaml").write_text(
        f"""
name: ordinary
target: {{http: {{url: "{url}"}}}}
tests: [{{name: one, input: "The default answer is Paris", ground_truth: "{link}"}}]
"""
    )
    done, _ = run(tmp_path, "suite.yaml")
    assert done.returncode in (0, 1), done.stderr
    assert server.requests[0].query == {"mode_key": "default", "lang": "en"}
    data = report(tmp_path)
    result = data["results"][0]
    assert "'mode_key': 'default'" in result["agent_response"]
    assert result["test_input"] == "The default answer is Paris"
    assert result["ground_truth"] == link
    assert data["run"]["config"]["tests"][0]["ground_truth"] == link
    assert data["run"]["config"]["target"]["http"]["url"] == url


def test_a_key_in_a_reply_s_url_query_is_masked_with_no_secret_registered(
    tmp_path: Path,
) -> None:
    """No secret is known and the reply holds no ``@``: the URL's query is still masked, in
    the report, the store's payload and a report rendered from the store."""
    key = "sk-live-abcdef123"
    (tmp_path / "query_agent.py").write_text(
        f"def respond(query, session_id):\n    return 'https://h.example/x?api_key={key}&lang=en'\n"
    )
    (tmp_path / "suite.yaml").write_text(
        "name: reply\ntarget: {python: 'query_agent:respond'}\n"
        "tests: [{name: one, input: 'What is the capital of France?', ground_truth: Paris}]\n"
    )
    done, outputs = run(tmp_path, "suite.yaml")
    assert done.returncode == 1, done.stderr  # equality failed: the reply was not Paris
    data = report(tmp_path)
    assert data["results"][0]["agent_response"] == "https://h.example/x?api_key=***&lang=en"
    with sqlite3.connect(tmp_path / ".assay" / "assay.db") as db:
        (payload,) = db.execute("SELECT payload FROM assay_test_results").fetchone()
    assert json.loads(payload)["agent_response"] == "https://h.example/x?api_key=***&lang=en"
    markdown = subprocess.run(
        [str(ASSAY), "report", data["run"]["id"], "--format", "markdown"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=True,
    ).stdout
    shown = re.findall(r"api_key=(\S*?)&lang=en", markdown)
    assert shown and set(shown) <= {"***", r"\*\*\*"}, markdown
    assert_nowhere(key, {**outputs, "markdown": markdown.encode()})


def test_a_key_in_the_openai_target_s_base_url_query(llm: ScriptedLLM, tmp_path: Path) -> None:
    key = "azure-query-key-2468"
    base_url = f"{llm.base_url}?api-version=2024-06-01&api-key={key}"
    (tmp_path / "suite.yaml").write_text(
        f"""
name: openai-query
target: {{openai: {{base_url: "{base_url}", model: m}}}}
tests: [{{name: one, input: hi}}]
"""
    )
    done, outputs = run(tmp_path, "suite.yaml")
    assert done.returncode == 0, done.stderr
    assert llm.requests[0].query == {"api-version": "2024-06-01", "api-key": key}
    assert_nowhere(key, outputs)
    shown = f"{llm.base_url}?api-version=2024-06-01&api-key=***"
    assert report(tmp_path)["run"]["config"]["target"]["openai"]["base_url"] == shown


def test_a_secret_with_spaces_in_a_redirect_error(server: AgentServer, tmp_path: Path) -> None:
    secret = 'open sesame "4242"'
    (tmp_path / "suite.yaml").write_text(
        f"""
name: redirects
target: {{http: {{url: "{server.url}/loop?key=${{SPACED_SECRET}}", method: GET}}}}
tests: [{{name: one, input: hi}}]
"""
    )
    done, outputs = run(tmp_path, "suite.yaml", env={"SPACED_SECRET": secret})
    assert done.returncode == 1, done.stderr
    errors = report(tmp_path)["results"][0]["errors"]
    assert "too many redirects" in errors[0] and "key=***" in errors[0]
    assert_nowhere(secret, outputs)


def test_a_judge_key_echoed_by_the_judge(
    server: AgentServer, llm: ScriptedLLM, tmp_path: Path
) -> None:
    key = "sk-judge-echo-55aa66bb"

    def echo_key(api: str, body: dict[str, Any]) -> str:
        sent = llm.requests[-1].headers["Authorization"]
        return json.dumps({"reasoning": f"you sent me {sent}", "score": 4})

    llm.responder = echo_key
    (tmp_path / "suite.yaml").write_text(
        f"""
name: judged
target: {{http: {{url: {server.url}/chat}}}}
judge: {{provider: openai, model: j, base_url: "{llm.base_url}", api_key_env: JUDGE_ECHO_KEY}}
tests: [{{name: one, input: hi, ground_truth: anything, metrics: [correctness]}}]
"""
    )
    done, outputs = run(tmp_path, "suite.yaml", env={"JUDGE_ECHO_KEY": key})
    assert done.returncode in (0, 1), done.stderr
    assert llm.calls() == 1
    assert "cache.db" in outputs
    assert_nowhere(key, outputs)
    metric = report(tmp_path)["results"][0]["metric_results"][0]
    assert metric["reasoning"] == "you sent me Bearer ***"


# -- a default key goes only to its own provider --------------------------------------------


@pytest.fixture
def default_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default-openai-1234")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-default-anthropic-1234")
    reset_limiters()
    yield
    reset_limiters()


async def test_the_openai_target_sends_the_default_key_nowhere_else(
    llm: ScriptedLLM, default_keys: None
) -> None:
    request = TurnRequest("hi", "s", "1", 0)
    for config, header in [
        ({}, None),  # a local server: the default variable is not its key
        ({"api_key_env": "OPENAI_API_KEY"}, "Bearer sk-default-openai-1234"),  # named: sent
        ({"api_key_env": None}, None),
    ]:
        full = {"base_url": llm.base_url, "model": "m", **config}
        target = OpenAITarget(OpenAIConfig.model_validate(full))
        await target.session("s").send(request)
        await target.aclose()
        assert llm.requests[-1].headers.get("Authorization") == header, config
    own = OpenAITarget(OpenAIConfig(base_url="https://api.openai.com/v1", model="m"))
    assert own.headers["Authorization"] == "Bearer sk-default-openai-1234"


def test_a_judge_gets_the_default_key_only_on_its_provider_s_host(default_keys: None) -> None:
    def key(**config: Any) -> str | None:
        return api_key_for(ModelConfig.model_validate(config))

    assert key(provider="openai", model="m") == "sk-default-openai-1234"
    assert key(provider="openai", model="m", base_url="https://api.openai.com/v1") is not None
    assert key(provider="anthropic", model="c") == "sk-default-anthropic-1234"
    for other in (
        "http://127.0.0.1:8080/v1",  # a local llama.cpp
        "https://proxy.example.com/v1",  # a colleague's proxy
        "http://api.openai.com/v1",  # not over HTTPS
        "https://api.openai.com.evil.example/v1",
        "https://api.anthropic.com/v1",  # the other provider's host
    ):
        assert key(provider="openai", model="m", base_url=other) is None, other
    assert key(provider="anthropic", model="c", base_url="http://127.0.0.1:1/v1") is None
    named = key(provider="openai", model="m", base_url="http://x/v1", api_key_env="OPENAI_API_KEY")
    assert named == "sk-default-openai-1234"


def test_a_named_variable_that_is_unset_is_a_config_error(
    default_keys: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        api_key_for(ModelConfig(provider="openai", model="m"))
    config = ModelConfig(provider="openai", model="m", base_url="http://x/v1", api_key_env="K9")
    with pytest.raises(ConfigError, match="K9 is not set"):
        api_key_for(config)


def test_hostile_texts_are_masked_in_one_pass() -> None:
    """URL masking runs on agents' replies: on these megabyte texts the earlier patterns
    backtracked for minutes (a scheme retried from every letter of "a.a.a...", a lazy query
    retried at every length, a path scanned on from each "x://"); each is one pass now."""
    from assay.secrets import MASK, mask_url_credentials

    dots = "." * 1_000_000
    assert mask_url_credentials(f"http://h?key=k{dots}x") == f"http://h?key={MASK}"
    assert mask_url_credentials(f"http://h?key=k{dots}") == f"http://h?key={MASK}{dots}"
    many = "a." * 500_000 + " x://u:pw@h/?token=tt"
    assert mask_url_credentials(many) == "a." * 500_000 + f" x://u:{MASK}@h/?token={MASK}"
    schemes = "x://" * 250_000 + "?sig=s"
    assert mask_url_credentials(schemes) == "x://" * 250_000 + f"?sig={MASK}"
    # a port, and a colon in a path, are still part of the URL; punctuation after it is not
    assert mask_url_credentials("https://h:8080/Talk:Foo?api_key=a&lang=en: ok") == (
        f"https://h:8080/Talk:Foo?api_key={MASK}&lang=en: ok"
    )
