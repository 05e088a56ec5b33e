"""Consent (graph/privacy/guards/consent.py): an opt-out is stored as a keyed hash of the member's id, never the id."""

from __future__ import annotations

from graph.privacy.guards.consent import consent_key, opt_in, opt_out, opted_out_keys
from graph.store import GraphStore
from tests.support.busy_server import PEOPLE


async def test_consent_is_stored_as_a_keyed_hash(store: GraphStore) -> None:
    await opt_out(store, PEOPLE["mallory"])
    keys = await opted_out_keys(store)
    assert keys == {consent_key(store, PEOPLE["mallory"])} and PEOPLE["mallory"] not in next(iter(keys))
    assert await opt_in(store, PEOPLE["mallory"])
    assert await opted_out_keys(store) == set()
