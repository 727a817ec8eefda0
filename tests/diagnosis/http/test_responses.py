"""`safe_url` without userinfo is the URL's own text: exactly what rebuilding it gives."""

from __future__ import annotations

import string

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.http.responses import safe_url

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
