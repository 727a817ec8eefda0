"""`safe_url` and `absolute_url`: the same URL text as httpx gives, built for less."""

from __future__ import annotations

import string

import httpx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from diagnosis.http.responses import absolute_url, safe_url

SEGMENT = st.text(alphabet=string.printable.strip() + " é/%", max_size=20)
QUERY = st.dictionaries(SEGMENT, SEGMENT, max_size=4)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http://runai.invalid", "https://Acme.Run.AI:443", "http://127.0.0.1:8080",
                     "http://[::1]:9000/k8s/uuid"]),
    st.lists(SEGMENT, max_size=4),
    QUERY,
    st.sampled_from(["", "bob", "bob:s3cret"]),
)  # fmt: skip
def test_safe_url_is_the_rebuilt_url_without_userinfo(base, path, query, userinfo):
    url = httpx.URL(base + "/" + "/".join(path), params=query)
    if userinfo:
        url = url.copy_with(userinfo=userinfo.encode())

    assert safe_url(url) == str(url.copy_with(username=None, password=None))
    assert httpx.URL(safe_url(url)).userinfo == b""


@pytest.mark.parametrize(
    "base", ["https://acme.run.ai", "https://acme.run.ai/prefix/", "http://10.0.0.1:6443"]
)
@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/v1/workloads", None),
        ("/api/v1/workloads", {}),
        ("api/v1/clusters", None),
        (
            "/api/v1/workloads",
            {
                "filterBy": "name==job 42,clusterId==c-1,projectName==ml/team+ü",
                "sortBy": "phaseUpdatedAt",
                "limit": 100,
            },
        ),
        ("/api/v1/workloads/abc%2Fdef/metrics", {"start": "2026-12-04T10:00:00Z", "x": "a&b=c#d"}),
        ("/api/v1/namespaces/runai-ml/events", {"fieldSelector": "involvedObject.name=pod-0"}),
        ("/api/v1/events?watch=0", {"limit": 5}),
        ("/api/v1/pods#frag", None),
    ],
)
def test_absolute_url_is_the_url_httpx_builds(base, path, params):
    client = httpx.AsyncClient(base_url=base)

    built = absolute_url(client, path, params)

    assert built == client.build_request("GET", path, params=params).url
    assert str(built) == str(client.build_request("GET", path, params=params).url)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        ["http://runai.invalid", "https://Acme.Run.AI:443/", "http://[::1]:9000/k8s/uuid"]
    ),
    st.lists(SEGMENT, max_size=4),
    QUERY,
)
def test_absolute_url_agrees_with_httpx_on_any_path_and_query(base, path, query):
    client = httpx.AsyncClient(base_url=base)
    relative = "/" + "/".join(path)
    assume(not relative.startswith("//"))  # httpx refuses those; absolute_url leaves them to it

    assert (
        absolute_url(client, relative, query)
        == client.build_request("GET", relative, params=query).url
    )
