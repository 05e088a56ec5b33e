"""docker/compose.yml and docker/Dockerfile, checked without a Docker engine (none runs here)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML reads docker/compose.yml: pip install -e '.[dev]'")

REPO = Path(__file__).resolve().parents[3]
DOCKER = REPO / "docker"
REQUIRED_PASSWORD = re.compile(r"\$\{NEO4J_PASSWORD:\?(?P<message>[^}]+)\}")  # compose stops when it is unset or empty
AUTH = re.compile(r"\$\{NEO4J_USER:-neo4j\}/" + REQUIRED_PASSWORD.pattern)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DOCKER / "compose.yml").read_text(encoding="utf-8"))
    return loaded


def published(service: dict[str, Any]) -> set[int]:
    """Container ports published by a service ("127.0.0.1:7474:7474", "7474:7474" or long form)."""
    ports = set()
    for entry in service.get("ports", []):
        ports.add(int(entry["target"]) if isinstance(entry, dict) else int(str(entry).rsplit(":", 1)[-1].split("/")[0]))
    return ports


def test_neo4j_service_has_browser_bolt_a_named_volume_and_a_healthcheck(compose: dict[str, Any]) -> None:
    neo4j = compose["services"]["neo4j"]
    assert re.fullmatch(r"neo4j:5(\.\d+)*-community", neo4j["image"])
    assert published(neo4j) == {7474, 7687}
    volumes = {v.split(":", 1)[0]: v.split(":", 1)[1] for v in neo4j["volumes"]}
    assert volumes["neo4j-data"] == "/data"
    assert set(volumes) <= set(compose["volumes"]), "a volume of the service is not declared as a named volume"
    assert AUTH.fullmatch(neo4j["environment"]["NEO4J_AUTH"]), neo4j["environment"]["NEO4J_AUTH"]
    assert "env_file" not in neo4j, "the neo4j image would turn .env's NEO4J_* keys into settings"
    check = neo4j["healthcheck"]
    assert check["test"][0] == "CMD-SHELL" and "cypher-shell" in check["test"][1]
    assert "$${NEO4J_AUTH" in check["test"][1]  # $$: the container's shell expands it, not Compose
    assert not re.search(r"(^|\s)(-p|--password)\b", check["test"][1]), "a password in cypher-shell's arguments is listed by ps"
    assert check["retries"] >= 3 and check["interval"].endswith("s")


def test_compose_refuses_to_start_without_a_password(compose: dict[str, Any]) -> None:
    """No known default password: compose stops with its message unless NEO4J_PASSWORD is set."""
    text = (DOCKER / "compose.yml").read_text(encoding="utf-8")
    assert "NEO4J_PASSWORD:-" not in text and "change-me" not in text
    auth = AUTH.fullmatch(compose["services"]["neo4j"]["environment"]["NEO4J_AUTH"])
    assert auth is not None and "NEO4J_PASSWORD" in auth["message"] and "8" in auth["message"]
    env = compose["services"]["bot"]["environment"]
    assert REQUIRED_PASSWORD.fullmatch(env["NEO4J_PASSWORD"])
    assert f"{env['NEO4J_USER']}/{env['NEO4J_PASSWORD']}" == compose["services"]["neo4j"]["environment"]["NEO4J_AUTH"], (
        "the bot and Neo4j must agree on the credentials"
    )
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert "NEO4J_PASSWORD" in header


def test_bot_runs_grapevine_on_neo4j_after_it_is_healthy(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    assert bot["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
    assert (DOCKER / bot["build"]["context"] / bot["build"]["dockerfile"]).resolve() == DOCKER / "Dockerfile"
    assert bot["command"] == ["grapevine", "run"]
    assert bot["env_file"] == [{"path": "../.env", "required": False}]
    env = bot["environment"]
    assert env["GRAPEVINE_ENGINE"] == "neo4j" and env["NEO4J_URI"] == "bolt://neo4j:7687"
    assert bot["depends_on"] == {"neo4j": {"condition": "service_healthy"}}
    assert not published(bot)


def test_dockerfile_installs_every_package_of_the_project() -> None:
    text = (DOCKER / "Dockerfile").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert re.fullmatch(r"FROM python:3\.\d+-slim", lines[0])  # which version: tests/test_setup.py
    copied = set()
    for line in lines:
        if line.startswith("COPY "):
            *sources, _dest = line.split()[1:]
            for source in sources:
                assert (REPO / source).exists(), f"the Dockerfile copies {source}, which the repository lacks"
                copied.add(source)
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert packages <= copied, f"the image would lack {sorted(packages - copied)}"
    assert {"pyproject.toml", project["project"]["readme"], *project["project"]["license-files"]} <= copied
    assert any(line.startswith("RUN pip install .") for line in lines)
    assert lines[-1] == 'CMD ["grapevine", "run"]'
    assert any(line.startswith("USER ") and "root" not in line for line in lines)
