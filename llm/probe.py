"""What `grapevine doctor` asks an LLM endpoint: does it answer, which structured output mode works, which
models it lists, and the context size it reports."""

from __future__ import annotations

from dataclasses import dataclass

import openai
from pydantic import BaseModel, Field

from common.settings import LLMSettings
from common.urls import mask_credentials
from llm.client import OpenAILLM, effective_timeout
from llm.errors import LLMError, describe_api_error
from llm.meter import UsageMeter


async def check_reachable(settings: LLMSettings) -> str | None:
    """GET /models on the endpoint; None when it answers, else a message for `grapevine doctor`."""
    if not settings.base_url:
        return "LLM_BASE_URL is not set: extraction and replies are switched off"
    url, timeout = mask_credentials(settings.base_url), min(effective_timeout(settings), 10.0)
    client = openai.AsyncOpenAI(
        base_url=settings.base_url, api_key=settings.api_key.get_secret_value() or "none", timeout=timeout, max_retries=0
    )
    try:
        await client.models.list()
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        return f"LLM endpoint {url} refused the API key (HTTP {exc.status_code}); check LLM_API_KEY"
    except openai.NotFoundError:
        return f"LLM endpoint {url} has no /models route (HTTP 404); does LLM_BASE_URL need a /v1 suffix?"
    except openai.APITimeoutError:
        return f"LLM endpoint {url} did not answer GET /models within {timeout:g}s"
    except openai.APIError as exc:
        return f"LLM endpoint {url} is not usable: {describe_api_error(exc)}"
    finally:
        await client.close()
    return None


class _Probe(BaseModel):
    """The smallest structured answer: what `grapevine doctor` asks for."""

    ok: bool = Field(description="true")
    word: str = Field(max_length=20, description="one word")


@dataclass(frozen=True)
class EndpointReport:
    mode: str | None  # the structured output mode that worked, None when none did
    models: list[str]  # what the server lists at /models
    context_tokens: int | None
    problem: str | None


async def probe_endpoint(settings: LLMSettings) -> EndpointReport:
    """One small structured call through every fallback: which mode works, which models the server lists,
    and the context size it reports (for `grapevine doctor`)."""
    llm = OpenAILLM(settings.model_copy(update={"max_attempts": 1}), UsageMeter(), min_wait=0.01, max_wait=0.1)
    try:
        listed = await llm.listed_models()
        context = await llm.reported_context()
        try:
            await llm.extract(
                [{"role": "system", "content": "Answer in the schema."}, {"role": "user", "content": "Say ok."}],
                _Probe,
                purpose="doctor",
            )
        except LLMError as exc:
            return EndpointReport(None, listed, context, str(exc)[:300])
        return EndpointReport(llm.modes[0], listed, context, None)
    finally:
        await llm.aclose()
