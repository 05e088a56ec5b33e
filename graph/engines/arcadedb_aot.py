"""The JDK's ahead-of-time cache for the embedded engine (JEP 483/515): classes loaded and linked, and method
profiles, from an earlier run of the engine, so a restarted engine reaches its compiled speed after fewer reads.

A run without a cache records one (-XX:AOTMode=record): when the engine stops, the JVM is shut down so it writes
what it recorded, and a detached `java -XX:AOTMode=create` turns that into the cache, written under a temporary
name and renamed when whole. Later runs start with -XX:AOTCache. The file's name carries the install's jars folder
and a fingerprint of the bundled JRE, the engine's jar files and the JVM options, so a new JRE, jar or option records
a new one (the install's older ones are removed), and two installs on one machine keep one each. The cache is never
a correctness risk: a JVM that cannot use it says so in its log and runs without it (AOTMode=auto, the default),
and only a JRE of 25 or later is given any of these options.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

UNUSED_DAYS = 30  # a cache no start has used for this long (an install removed, say) is deleted by the others
MIN_JAVA = 25  # JEP 514's one-step -XX:AOTCacheOutput aside, record and create work from 24; profiles from 25 (JEP 515)


def _runtime() -> tuple[str, str] | None:
    """The bundled JRE's folder and its jars' folder, or None when the package has no bundled JRE."""
    try:
        import arcadedb_embedded
    except ImportError:
        return None
    base = os.path.dirname(arcadedb_embedded.__file__)
    jre, jars = os.path.join(base, "jre"), os.path.join(base, "jars")
    return (jre, jars) if os.path.isfile(os.path.join(jre, "release")) else None


def java_major(release_text: str) -> int:
    """The feature version in a JRE's `release` file (JAVA_VERSION="25.0.4.1" -> 25; 0 when unknown)."""
    for line in release_text.splitlines():
        if line.startswith("JAVA_VERSION="):
            version = line.split("=", 1)[1].strip().strip('"')
            head = version.split(".")[0].split("-")[0]
            if head == "1":  # 1.8 and older
                return 0
            return int(head) if head.isdigit() else 0
    return 0


@dataclass
class AotCache:
    """Where the cache lives (`folder`, under the engine's root) and whether this run records or uses it."""

    folder: str
    jvm_options: list[str]
    record: bool = True  # without a cache: record one (False: run without)
    training: bool = field(default=False, init=False)
    cache: str = field(default="", init=False)
    _java: str = field(default="", init=False)

    def options(self) -> list[str]:
        """The options to add for this run (none when the bundled JRE is older than MIN_JAVA or missing)."""
        runtime = _runtime()
        if runtime is None:
            return []
        jre, jars = runtime
        with open(os.path.join(jre, "release"), encoding="utf-8") as f:
            release = f.read()
        if java_major(release) < MIN_JAVA:
            return []
        self._java = os.path.join(jre, "bin", "java")
        # the JVM maps a cache only for the jar files it was recorded from, by path, size and time: each install
        # (a virtualenv) has its own, and a jar written again (a reinstall) means another
        install = f"engine-{hashlib.sha256(os.path.realpath(jars).encode()).hexdigest()[:8]}-"
        stamp = hashlib.sha256(release.encode())
        for jar in sorted(glob.glob(os.path.join(jars, "*.jar"))):
            found = os.stat(jar)
            stamp.update(f"{os.path.basename(jar)}:{found.st_size}:{found.st_mtime_ns}\0".encode())
        stamp.update("\0".join(o for o in self.jvm_options if not o.startswith("-Xmx")).encode())
        name = f"{install}{stamp.hexdigest()[:16]}"
        os.makedirs(self.folder, exist_ok=True)
        self.cache = os.path.join(self.folder, name + ".aot")
        unused = time.time() - UNUSED_DAYS * 86400
        for old in glob.glob(os.path.join(self.folder, "engine-*")):
            if os.path.basename(old).startswith(name):
                continue
            with contextlib.suppress(OSError):  # this install's outdated ones; another install's once unused
                if os.path.basename(old).startswith(install) or os.path.getmtime(old) < unused:
                    os.remove(old)
        if os.path.isfile(self.cache):
            with contextlib.suppress(OSError):
                os.utime(self.cache)  # in use: another install's sweep keeps it
            for config in glob.glob(os.path.join(self.folder, name + ".*.aotconf")):  # what the cache was made from
                with contextlib.suppress(OSError):
                    os.remove(config)
            return [f"-XX:AOTCache={self.cache}"]
        if not self.record:
            return []
        self.training = True
        return ["-XX:AOTMode=record", f"-XX:AOTConfiguration={self._config}"]

    @property
    def _config(self) -> str:  # one per recording process: engines of several data directories share the folder
        return f"{self.cache[: -len('.aot')]}.{os.getpid()}.aotconf"

    def finish(self, log: Any) -> None:
        """After a recording run's engine stopped: shut the JVM down (it writes the recorded configuration), then
        create the cache in a detached process, so this process exits now and the next start finds it whole."""
        if not self.training:
            return
        import jpype

        classpath = str(jpype.java.lang.System.getProperty("java.class.path"))
        args = [str(a) for a in jpype.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()]
        jpype.shutdownJVM()
        if not os.path.isfile(self._config):
            return
        keep = [a for a in args if not a.startswith(("-XX:AOTMode", "-XX:AOTConfiguration", "-XX:ErrorFile", "-Xlog"))]
        partial = f"{self.cache}.{os.getpid()}.part"
        create = [self._java, *keep, "-XX:AOTMode=create", f"-XX:AOTConfiguration={self._config}",
                  f"-XX:AOTCache={partial}", "-cp", classpath]  # fmt: skip
        script = 'if "$@"; then mv -f "$P" "$C"; else rm -f "$P"; fi'
        subprocess.Popen(
            ["sh", "-c", script, "aot-create", *create],
            env={**os.environ, "P": partial, "C": self.cache},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives this process: the engine's owner is not kept waiting
        )
