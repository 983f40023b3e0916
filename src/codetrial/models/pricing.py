"""What a reply cost, from the genai-prices list when the API does not say.

genai-prices tracks each provider's prices per model and date, and ships its data in the wheel
(nothing is fetched: its auto-update is never started). Input, cached input, output and
reasoning tokens are priced apart, as the list prices them. A model the list does not know has
no cost (None, shown as "unknown"), never $0; `--price-in/--price-out` (USD per million tokens)
replace the list's price for every token of that side, cached input included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codetrial.models.base import Model, ModelWrapper, Reply, Request, Usage

PROVIDERS = {"openai": "openai", "anthropic": "anthropic"}  # backend prefix -> list's provider


@dataclass(frozen=True)
class PriceOverride:
    """USD per million tokens; None leaves that side to the price list."""

    input: float | None = None
    output: float | None = None


def list_cost(model: str, base_url: str | None, usage: Usage) -> tuple[float, float] | None:
    """(input, output) USD from the price list: the provider serving `base_url` if the list
    knows it, else the backend's own provider; None for a model neither prices."""
    prefix, _, name = model.partition(":")
    provider = PROVIDERS.get(prefix)
    if provider is None or not name:
        return None
    import genai_prices  # 0.3 s: only runs against an API import it

    priced = genai_prices.Usage(
        input_tokens=usage.prompt_tokens, cache_read_tokens=usage.cached_tokens,
        output_tokens=usage.completion_tokens, output_reasoning_tokens=usage.reasoning_tokens)
    where: list[dict[str, Any]] = [{"provider_id": provider}]
    if base_url:
        where.insert(0, {"provider_api_url": base_url})
    for place in where:
        try:
            price = genai_prices.calc_price(priced, name, **place)
        except LookupError:
            continue
        return float(price.input_price), float(price.output_price)
    return None


def reply_cost(model: str, base_url: str | None, usage: Usage,
               override: PriceOverride = PriceOverride()) -> float | None:
    """The reply's USD cost, each side from the override if given, else from the list."""
    listed = None
    if override.input is None or override.output is None:
        listed = list_cost(model, base_url, usage)
        if listed is None:
            return None
    sides = []
    for per_million, tokens, index in ((override.input, usage.prompt_tokens, 0),
                                       (override.output, usage.completion_tokens, 1)):
        sides.append(tokens * per_million / 1e6 if per_million is not None else listed[index])
    return sum(sides)


class PricedModel(ModelWrapper):
    """Puts a cost on every reply the API did not price (or on all, under an override).
    Outside the reply cache: a cached reply is priced as it would cost fresh, and the summary
    tells what the run paid (nothing for cached replies) from what it would cost fresh."""

    def __init__(self, inner: Model, base_url: str | None,
                 override: PriceOverride = PriceOverride()) -> None:
        super().__init__(inner)
        self.base_url = base_url
        self.override = override

    async def generate(self, request: Request) -> Reply:
        reply = await self.inner.generate(request)
        overridden = self.override.input is not None and self.override.output is not None
        if reply.cost_usd is None or overridden:
            reply.cost_usd = reply_cost(self.name, self.base_url, reply.usage, self.override)
        return reply
