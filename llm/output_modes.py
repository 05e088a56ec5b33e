"""Structured output over any OpenAI-compatible server: the four ways to ask for JSON, how each answer is
read back, and how many tokens a schema's answer can take.

Servers differ: OpenAI and llama.cpp's `llama-server` enforce `response_format` of type `json_schema`;
llama-cpp-python rejects it and takes `{"type": "json_object", "schema": ...}`; others only call tools,
or only write text. Every mode ends in the same validation by the answer's pydantic model.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, cast

from pydantic import BaseModel

OutputMode = Literal["json_schema", "json_object", "tools", "text"]
MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "tools", "text")
TOOL_NAME = "answer"
# A server's error that names the request's structured-output part: the mode is unsupported, not a fault.
MODE_REJECTED = re.compile(r"response_format|json_schema|json_object|tool_choice|\btools?\b|grammar|schema", re.I)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.I)

# Tokens an answer can take, walking its JSON schema: about 3 characters a token in JSON strings, a few
# tokens per key, number and bracket. Unbounded parts count as UNBOUNDED_STRING / UNBOUNDED_ITEMS.
CHARS_PER_TOKEN = 3
UNBOUNDED_STRING = 200
UNBOUNDED_ITEMS = 10
MIN_TEXT = 24  # characters a fitted text keeps at least


def answer_schema(model: type[BaseModel], *, strict: bool, limit: int | None = None, worst: bool = False) -> dict[str, Any]:
    """The model's JSON schema with its definitions inlined, its bounds tightened until an answer that
    fills them fits in `limit` tokens (so a grammar-constrained server closes the JSON before the length
    limit, whatever the model does); strict: every property required and no extra ones."""
    raw = model.model_json_schema()
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    if limit is not None:
        schema = fitted(schema, limit, worst=worst)
    return cast(dict[str, Any], _strict(schema)) if strict else schema


def fitted(schema: dict[str, Any], limit: int, *, worst: bool = False) -> dict[str, Any]:
    """`schema` with its bounds cut until an answer filling them takes at most `limit` tokens: first the
    costliest lists down to one item each, then every text halved, then lists down to none."""
    fit: dict[str, Any] = json.loads(json.dumps(schema))
    nodes = _nodes(fit)
    lists = [n for n in nodes if n.get("type") == "array" and "maxItems" in n]
    texts = [n for n in nodes if n.get("type") == "string" and "maxLength" in n]
    for floor in (1, 0):
        while _bound(fit, worst) > limit:
            cuttable = [n for n in lists if n["maxItems"] > floor]
            if not cuttable:
                break
            largest = max(cuttable, key=lambda n: n["maxItems"] * (_bound(n.get("items", {}), worst) + 1))
            largest["maxItems"] -= max(1, (largest["maxItems"] - floor) // 4)
        while floor == 1 and _bound(fit, worst) > limit and any(n["maxLength"] > MIN_TEXT for n in texts):
            for node in texts:
                if node["maxLength"] > MIN_TEXT:
                    node["maxLength"] = max(MIN_TEXT, node["maxLength"] // 2)
    return fit


def _nodes(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_nodes(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_nodes(value))
    return found


def request_for(
    mode: OutputMode, model: type[BaseModel], messages: list[dict[str, str]], limit: int | None = None, *, worst: bool = False
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The messages and the extra request fields that ask for `model` in this mode, its bounds fitted to
    the answer's token limit."""
    name = model.__name__
    if mode == "json_schema":
        schema = answer_schema(model, strict=True, limit=limit, worst=worst)
        return messages, {
            "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        }
    schema = answer_schema(model, strict=False, limit=limit, worst=worst)
    if mode == "json_object":  # the schema also in the prompt: servers that ignore the field (OpenAI's JSON mode)
        return _with_schema(messages, schema), {"response_format": {"type": "json_object", "schema": schema}}
    if mode == "tools":
        tool = {"type": "function", "function": {"name": TOOL_NAME, "description": f"Give the {name}.", "parameters": schema}}
        return messages, {"tools": [tool], "tool_choice": {"type": "function", "function": {"name": TOOL_NAME}}}
    return _with_schema(messages, schema), {}


def _with_schema(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    note = "Reply with only one JSON object, no other text, that matches this JSON schema:\n" + json.dumps(
        schema, separators=(",", ":")
    )
    return [*messages[:-1], {**messages[-1], "content": messages[-1]["content"] + "\n\n" + note}]


def answer_text(mode: OutputMode, message: dict[str, Any]) -> str:
    """The JSON text of a reply's message: the tool call's arguments in tools mode, else the content."""
    if mode == "tools":
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if function.get("name") == TOOL_NAME:
                return str(function.get("arguments") or "")
    return str(message.get("content") or "")


def tolerant_json(text: str) -> str:
    """The JSON object in a reply that may wrap it in a code fence or in words."""
    stripped = _FENCE.sub("", text.strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    return stripped[start : end + 1] if 0 <= start < end else stripped


def max_answer_tokens(model: type[BaseModel]) -> int:
    """An upper bound on the tokens of an answer that fills every bound of the model's schema."""
    return _bound(answer_schema(model, strict=False)) + 8


def _bound(schema: dict[str, Any], worst: bool = False) -> int:
    """Tokens of an answer that fills every bound: about 3 characters a token in JSON text, or (`worst`)
    one a character and a run of whitespace between every two values, which a grammar still allows."""
    per_char, gap = (1, 3) if worst else (CHARS_PER_TOKEN, 0)
    if "anyOf" in schema:
        return max(_bound(s, worst) for s in schema["anyOf"])
    if "enum" in schema:
        return max(len(str(v)) for v in schema["enum"]) // per_char + 2 + gap
    kind = schema.get("type")
    if kind == "string":
        return int(schema.get("maxLength", UNBOUNDED_STRING)) // per_char + 2 + gap
    if kind == "array":
        return 2 + gap + int(schema.get("maxItems", UNBOUNDED_ITEMS)) * (_bound(schema.get("items", {}), worst) + 1 + gap)
    if kind == "object":
        props = schema.get("properties", {})
        return 2 + gap + sum(len(key) // 4 + 2 + gap + _bound(value, worst) for key, value in props.items())
    return 3 + gap  # numbers, booleans, null


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        dropped = ("default",)
        out = {k: _strict(v) for k, v in node.items() if k not in dropped and not (k == "title" and isinstance(v, str))}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_strict(v) for v in node]
    return node
