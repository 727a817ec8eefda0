"""The bot's own "Open in Run:ai" link, pasted back, is read as the IDs it was made from."""

from __future__ import annotations

import pytest

from bot.conversation import Markup
from bot.conversation.understand.pipeline import understand
from bot.render.actions import runai_workload_url

CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"
WORKLOAD = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"


@pytest.mark.parametrize("base", ["https://acme.run.ai", "https://runai.example.com/console/"])
@pytest.mark.parametrize(
    ("markup", "wrap"),
    [
        (Markup.SLACK, "<{url}|Open in Run:ai>"),
        (Markup.SLACK, "<{url}>"),
        (Markup.TEAMS, '<a href="{url}">Open in Run:ai</a>'),
        (Markup.PLAIN, "{url}"),
    ],
)
def test_the_answers_own_link_names_its_cluster_and_workload(base, markup, wrap):
    url = runai_workload_url(base, CLUSTER, WORKLOAD)
    assert url is not None
    shown = url.replace("&", "&amp;") if markup is not Markup.PLAIN else url
    understood = understand(f"why did this fail? {wrap.format(url=shown)}", markup=markup)
    assert (understood.query.cluster, understood.query.workload_id) == (CLUSTER, WORKLOAD)
    assert understood.query.workload_name is None
