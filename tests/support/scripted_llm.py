"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

The real `openai` client talks to it over HTTP, so retries, timeouts and parsing are exercised for
real. Replies come from a queue (`push`) or, when the queue is empty, from `responder`. Token usage
is counted here, on the server side, with `estimate_tokens`.

    with ScriptedLLMServer() as srv:
        srv.push({"facts": []})
        srv.push(Fault.status(429))
        client = AsyncOpenAI(base_url=srv.base_url, api_key="x")
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel

from common.tokens import estimate_tokens


@dataclass(frozen=True)
class Fault:
    """A scripted failure. Build with `Fault.status`, `Fault.timeout` or `Fault.malformed`."""

    kind: str
    status_code: int = 0
    seconds: float = 0.0
    content: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def status(cls, code: int, message: str | None = None) -> Fault:
        headers = {"retry-after": "0"} if code == 429 else {}
        return cls("status", status_code=code, content=message or f"scripted error {code}", headers=headers)

    @classmethod
    def timeout(cls, seconds: float) -> Fault:
        """Sleep `seconds`, then answer 504; a client with a shorter timeout gives up first."""
        return cls("timeout", seconds=seconds)

    @classmethod
    def malformed(cls, content: str = "{not json") -> Fault:
        """A normal 200 completion whose content is `content` (meant to be broken JSON)."""
        return cls("malformed", content=content)


Reply = dict[str, Any] | BaseModel | str | Fault
Responder = Callable[[dict[str, Any]], Reply]


@dataclass(frozen=True)
class ServerProfile:
    """How a real server behaves at the edges, as measured (ENGINES.md, "Real LLM servers").

    The default takes everything, like OpenAI. `LLAMA_CPP_PYTHON` rejects `json_schema` with an HTTP 500
    naming `response_format` and drops system messages; `LLAMA_SERVER` reports its context size at
    `/props` and refuses a prompt that does not fit. Every profile stops an answer at the request's
    `max_tokens` with `finish_reason: "length"`, as every real server does.
    """

    response_formats: frozenset[str] = frozenset({"json_schema", "json_object", "text"})
    tools: bool = True
    drop_system: bool = False
    models: frozenset[str] | None = None  # the model names served; another is a 404
    usage: bool = True
    context: int | None = None  # reported at /props; a prompt with max_tokens beyond it is an HTTP 400


OPENAI_LIKE = ServerProfile()
LLAMA_CPP_PYTHON = ServerProfile(response_formats=frozenset({"json_object", "text"}), tools=False, drop_system=True)
LLAMA_SERVER = ServerProfile(context=8192)

_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 404: "not_found_error", 429: "rate_limit_exceeded"}


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def prompt_tokens_of(request: dict[str, Any]) -> int:
    return sum(estimate_tokens(_content_text(m.get("content"))) for m in request.get("messages", []))


class ScriptedLLMServer:
    def __init__(self, model: str = "scripted-model", profile: ServerProfile = OPENAI_LIKE) -> None:
        self.model = model
        self.profile = profile
        self.responder: Responder | None = None
        self.requests: list[dict[str, Any]] = []
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script -------------------------------------------------------------------------------
    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget the queue, recorded requests and totals (the responder stays)."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.calls = self.prompt_tokens = self.completion_tokens = 0

    # --- lifecycle ----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("ScriptedLLMServer is not running; use it as a context manager or call start()")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> ScriptedLLMServer:
        handler = type("_BoundHandler", (_Handler,), {"scripted": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in a timeout fault
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling (called from handler threads) ----------------------------------------
    def _next_reply(self, request: dict[str, Any]) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            self.calls += 1
            if self._queue:
                return self._queue.popleft()
            responder = self.responder
        return responder(request) if responder is not None else None

    def _count_read(self, request: dict[str, Any]) -> None:
        """A request the server read and then failed (5xx) or kept past the client's timeout: its prompt
        tokens were processed, as a real server's meter would show."""
        with self._lock:
            self.prompt_tokens += prompt_tokens_of(request)

    def refusal(self, request: dict[str, Any]) -> tuple[int, str] | None:
        """What this server's profile says to a request it does not take, as (HTTP status, message)."""
        profile = self.profile
        if profile.models is not None and request.get("model") not in profile.models:
            return 404, f"The model `{request.get('model')}` does not exist"
        kind = (request.get("response_format") or {}).get("type")
        if kind and kind not in profile.response_formats:
            allowed = " or ".join(f"'{k}'" for k in sorted(profile.response_formats))
            return 500, f"1 validation error: ('body', 'response_format', 'type') Input should be {allowed}"
        if request.get("tools") and not profile.tools:
            return 400, "tools are not supported by this server"
        if profile.context is not None:
            needed = prompt_tokens_of(request) + int(request.get("max_tokens") or 0)
            if needed > profile.context:
                return 400, f"the request ({needed} tokens) exceeds the available context size ({profile.context} tokens)"
        return None

    def _completion(self, request: dict[str, Any], content: str) -> dict[str, Any]:
        finish = "stop"
        limit = request.get("max_tokens")
        if limit and estimate_tokens(content) > int(limit):
            content = content[: max(1, len(content) * int(limit) // estimate_tokens(content))]
            finish = "length"
        prompt, completion = prompt_tokens_of(request), estimate_tokens(content)
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if request.get("tools"):
            name = ((request.get("tool_choice") or {}).get("function") or {}).get("name") or "answer"
            call = {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function", "function": {"name": name, "arguments": content}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        body: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        }
        if self.profile.usage:
            body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return body


def _error_body(code: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(code, "server_error" if code >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedLLMServer
    protocol_version = "HTTP/1.0"  # one request per connection: nothing idles after shutdown

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            pass  # the client gave up (e.g. its timeout fired while a fault slept)

    def _send(self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        profile = self.scripted.profile
        if self.path.rstrip("/") == "/v1/models":
            names = sorted(profile.models) if profile.models is not None else [self.scripted.model]
            models = [{"id": name, "object": "model", "created": 0, "owned_by": "scripted"} for name in names]
            self._send(200, {"object": "list", "data": models})
        elif self.path.rstrip("/") == "/props" and profile.context is not None:
            self._send(200, {"default_generation_settings": {"n_ctx": profile.context}, "total_slots": 1})
        else:
            self._send(404, _error_body(404, f"no route GET {self.path}"))

    def do_POST(self) -> None:
        if self.path.rstrip("/") == "/tokenize" and self.scripted.profile.context is not None:  # llama.cpp's route
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            self._send(200, {"tokens": list(range(estimate_tokens(str(body.get("content", "")))))})
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, _error_body(404, f"no route POST {self.path}"))
            return
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except json.JSONDecodeError as exc:
            self._send(400, _error_body(400, f"request body is not JSON: {exc}"))
            return
        srv = self.scripted
        if srv.profile.drop_system:
            request = {**request, "messages": [m for m in request.get("messages", []) if m.get("role") != "system"]}
        refused = srv.refusal(request)
        if refused is not None:
            with srv._lock:
                srv.requests.append(request)
            self._send(refused[0], _error_body(refused[0], refused[1]))
            return
        try:
            reply = srv._next_reply(request)
        except Exception as exc:  # noqa: BLE001 - a broken responder must show up as an error, not a hang
            self._send(500, _error_body(500, f"ScriptedLLMServer responder raised {exc!r}"))
            return
        if reply is None:
            self._send(500, _error_body(500, "ScriptedLLMServer: nothing scripted and no responder set"))
        elif isinstance(reply, Fault) and reply.kind == "status":
            if reply.status_code >= 500:
                srv._count_read(request)
            self._send(reply.status_code, _error_body(reply.status_code, reply.content), reply.headers)
        elif isinstance(reply, Fault) and reply.kind == "timeout":
            srv._count_read(request)
            srv._stopping.wait(reply.seconds)
            self._send(504, _error_body(504, "scripted timeout"))
        else:
            self._send(200, srv._completion(request, _reply_content(reply)))


def _reply_content(reply: Reply) -> str:
    if isinstance(reply, Fault):
        return reply.content
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    if isinstance(reply, str):
        return reply
    return json.dumps(reply)
