"""What LLM calls cost at the operator's price table."""

from __future__ import annotations

from common.settings import LLMSettings
from llm.meter import UsageTotals


def cost(settings: LLMSettings, totals: UsageTotals) -> float:
    """What `totals` cost at the price table of the settings (per million tokens)."""
    return (
        totals.prompt_tokens * settings.price_prompt_per_mtok + totals.completion_tokens * settings.price_completion_per_mtok
    ) / 1e6


def cost_text(settings: LLMSettings, totals: UsageTotals) -> str:
    """ ", cost 0.0123" when a price is set, else nothing."""
    if not (settings.price_prompt_per_mtok or settings.price_completion_per_mtok):
        return ""
    return f", cost {cost(settings, totals):.4f}"
