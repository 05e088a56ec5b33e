"""scripts/setup and scripts/pythons: the supported Pythons are the ones pyproject.toml names, the Docker image runs
the newest of them, an interpreter is found even where pyenv's shim for it cannot run, and setting up to run
grapevine (the README's first command) needs no npm, while setting up for the checks says at once that it does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
HERE = f"{sys.version_info.major}.{sys.version_info.minor}"
NODE = {"npm", "npx", "node", "corepack"}
BASE_PYTHON = Path(sys.base_prefix) / "bin" / f"python{HERE}"  # the interpreter this virtualenv was made from


def supported() -> list[str]:
    """The classifiers' versions, newest first."""
    prefix = "Programming Language :: Python :: "
    found = [
        c.removeprefix(prefix) for c in PYPROJECT["project"]["classifiers"] if re.fullmatch(r"3\.\d+", c.removeprefix(prefix))
    ]
    return sorted(found, key=lambda v: int(v.split(".")[1]), reverse=True)


def without_node(tmp_path: Path) -> str:
    """A PATH with every command of this one except npm and Node.js: a machine that never installed them."""
    bin_dir = tmp_path / "bin-without-npm"
    bin_dir.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not Path(folder).is_dir():
            continue
        for tool in Path(folder).iterdir():
            if tool.name not in NODE and not (bin_dir / tool.name).exists() and os.access(tool, os.X_OK):
                (bin_dir / tool.name).symlink_to(tool)
    return str(bin_dir)


def bash(script: str, *args: str, cwd: Path = REPO, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHON", "PYTHONPATH") and not k.startswith("GRAPEVINE_")
    }
    return subprocess.run(["bash", str(cwd / script), *args], env={**clean, **env}, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)  # fmt: skip


def test_the_supported_pythons_are_the_classifiers_newest_first_and_requires_python_admits_them() -> None:
    listed = bash("scripts/pythons", "--list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == supported()
    assert len(supported()) >= 2
    # from the oldest CI proves, with no upper bound (no dependency needs one)
    assert PYPROJECT["project"]["requires-python"] == f">={supported()[-1]}"


def test_the_docker_image_runs_the_newest_supported_python() -> None:
    image = re.search(r"^FROM python:(3\.\d+)-slim$", (REPO / "docker" / "Dockerfile").read_text(encoding="utf-8"), re.M)
    assert image is not None and image.group(1) == supported()[0]


def test_a_pyenv_shim_that_cannot_run_is_passed_over_for_pyenv_s_own_interpreter(tmp_path: Path) -> None:
    """pyenv puts a shim for every installed version on PATH; one whose version is not selected fails when run."""
    if HERE not in supported():
        pytest.skip(f"this Python ({HERE}) is not one grapevine supports")
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / f"python{HERE}"
    shim.write_text(f"#!/bin/sh\necho 'pyenv: python{HERE}: command not found' >&2\nexit 127\n")
    shim.chmod(0o755)
    installed = tmp_path / "pyenv" / "versions" / f"{HERE}.99" / "bin"
    installed.mkdir(parents=True)
    (installed / f"python{HERE}").symlink_to(BASE_PYTHON.resolve())

    found = bash("scripts/pythons", PATH=f"{shims}{os.pathsep}{os.environ['PATH']}", PYENV_ROOT=str(tmp_path / "pyenv"))

    assert found.returncode == 0, found.stderr
    assert f"{HERE} {installed / f'python{HERE}'}" in found.stdout.splitlines(), found.stdout


def test_setup_for_the_checks_without_npm_says_so_in_one_line_before_doing_anything(tmp_path: Path) -> None:
    for name in ("scripts/setup", "scripts/pythons", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes((REPO / name).read_bytes())

    done = bash("scripts/setup", "--dev", cwd=tmp_path, PATH=without_node(tmp_path))

    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "setup: npm not found; the checks' Cypher linter needs Node.js 20+ and npm (running grapevine does not: bash scripts/setup)"
    ]
    assert not (tmp_path / ".venv").exists()


@pytest.mark.slow
def test_setup_without_npm_installs_what_running_needs_and_says_what_next(tmp_path: Path) -> None:
    """The README's first command on a machine without npm, in a fresh copy of the checkout."""
    clone = tmp_path / "clone"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            (clone / name).write_bytes((REPO / name).read_bytes())
    interpreter = str(BASE_PYTHON)

    done = bash("scripts/setup", cwd=clone, timeout=900, PATH=without_node(tmp_path), PYTHON=interpreter)

    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stderr
    assert f"setup: Python {HERE} ({interpreter}): chosen by PYTHON" in said, said
    assert f"grapevine keeps its data in {clone / 'data'}" in said, said
    assert "next: cp .env.example .env, set DISCORD_TOKEN and LLM_BASE_URL" in said, said
    assert "npm" not in said.replace(str(tmp_path), "") and "Traceback" not in said
    runs = subprocess.run(
        [str(clone / ".venv" / "bin" / "grapevine"), "--help"], capture_output=True, text=True, timeout=120, cwd=clone
    )
    assert runs.returncode == 0 and "run" in runs.stdout, runs.stdout + runs.stderr
    checks_tools = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-c", "import pytest"], capture_output=True, timeout=60
    )
    assert checks_tools.returncode != 0  # the checks' tools come with scripts/test, not with running
    assert not (clone / "tools" / "cypher-lint" / "node_modules").exists()


def test_no_script_reads_a_pipe_with_a_reader_that_stops_early() -> None:
    """Under `set -o pipefail`, `producer | grep -q` fails at random: grep leaves at the first match, and the
    producer's next write dies of SIGPIPE (bash's printf writes a line per call). CI's setup once refused
    its own interpreter this way under load."""
    early = re.compile(r"\|\s*(grep\s+-[a-zA-Z]*[qm]|head\b)")
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in [*sorted((REPO / "scripts").iterdir()), REPO / ".ci" / "run"]
        if path.is_file() and "pipefail" in path.read_text()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if early.search(line) and not line.lstrip().startswith("#")
    ]
    assert not found, "\n".join(found)
