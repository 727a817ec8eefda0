"""Property tests: a secret of any kind, anywhere in any text, never survives; clean shapes do."""

from __future__ import annotations

import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from diagnosis.redact import MARKER, Redactor

PROPS = settings(max_examples=300, deadline=None)

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
UPPER_DIGITS = string.ascii_uppercase + string.digits
PRINTABLE = st.characters(min_codepoint=32, max_codepoint=126)

surrounding = st.text(alphabet=PRINTABLE | st.sampled_from("\n\t"), max_size=80)
separator = st.sampled_from([" ", "\n", "\t", ", ", "; ", " | ", ": ", " = ", "\r\n"])


def chars(alphabet: str, n: int, m: int | None = None) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=n, max_size=n if m is None else m)


aws_ids = st.builds(lambda p, s: p + s, st.sampled_from(["AKIA", "ASIA"]), chars(UPPER_DIGITS, 16))
jwts = st.builds(
    lambda h, p, s: f"eyJ{h}.eyJ{p}.{s}",
    chars(B64URL, 10, 40),
    chars(B64URL, 10, 80),
    chars(B64URL, 10, 86),
)
github = st.builds(
    lambda p, s: p + s, st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]), chars(ALNUM, 36)
)
slack = st.builds(
    lambda k, a, b, c: f"xox{k}-{a}-{b}-{c}",
    st.sampled_from("abpr"),
    chars(string.digits, 10, 13),
    chars(string.digits, 10, 13),
    chars(ALNUM, 24, 32),
)
hf = st.builds(lambda s: "hf_" + s, chars(string.ascii_letters, 34))
dsn_password = st.text(alphabet=ALNUM + "-_.~!$&*+=%;,()@:?#", min_size=6, max_size=30)
env_value = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40
)


@st.composite
def pem(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A PEM private key block (sometimes cut short); its body lines are the secret."""
    kind = draw(st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "]))
    lines = draw(
        st.lists(chars(string.ascii_letters + string.digits + "+/", 64), min_size=1, max_size=8)
    )
    block = f"-----BEGIN {kind}PRIVATE KEY-----\n" + "\n".join(lines)
    if draw(st.booleans()):
        block += f"\n-----END {kind}PRIVATE KEY-----"
    return block, lines


@st.composite
def dsn(draw: st.DrawFn) -> tuple[str, list[str]]:
    scheme = draw(
        st.sampled_from(["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp"])
    )
    user = (
        ""
        if scheme == "redis" and draw(st.booleans())
        else draw(chars(string.ascii_lowercase, 1, 12))
    )
    host = draw(
        st.sampled_from(["db", "pg.ml.svc:5432", "10.0.0.4:3306", "cluster0.ab1cd.mongodb.net"])
    )
    path = draw(st.sampled_from(["", "/runs", "/0", "/?retryWrites=true"]))
    # The password is the secret; one that is also the user name or host would stay visible there.
    password = draw(dsn_password.filter(lambda p: p not in f"{scheme}://{user}:@{host}{path}"))
    return f"{scheme}://{user}:{password}@{host}{path}", [password]


@st.composite
def key_value(draw: st.DrawFn) -> tuple[str, list[str]]:
    key = draw(
        st.sampled_from(
            ["PASSWORD", "DB_PASSWORD", "HF_TOKEN", "api_key", "client_secret", "--password"]
        )
    )
    value = draw(env_value)
    return f"{key}={value}", [value]


def as_secret(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, list[str]]]:
    return strategy.map(lambda s: (s, [s]))


secrets = st.one_of(
    as_secret(aws_ids),
    as_secret(jwts),
    as_secret(github),
    as_secret(slack),
    as_secret(hf),
    pem(),
    dsn(),
    key_value(),
)


def visible(out: str) -> str:
    """The output without its markers: a password like `github` may spell part of one."""
    return MARKER.sub("\0", out)


def embed(before: str, sep1: str, secret: tuple[str, list[str]], sep2: str, after: str) -> str:
    """The secret between two random texts; a secret the random text also holds is not a leak."""
    text = before + sep1 + secret[0] + sep2 + after
    assume(all(text.count(part) == secret[0].count(part) for part in secret[1]))
    return text


@PROPS
@given(surrounding, separator, secrets, separator, surrounding)
def test_secret_never_survives_anywhere(before, sep1, secret, sep2, after):
    redactor = Redactor()
    out = redactor.clean(embed(before, sep1, secret, sep2, after))
    for part in secret[1]:
        assert part not in visible(out)
    assert "[REDACTED:" in out
    assert redactor.total >= 1


@PROPS
@given(surrounding, separator, secrets, separator, surrounding)
def test_cleaning_twice_changes_nothing(before, sep1, secret, sep2, after):
    once = Redactor().clean(embed(before, sep1, secret, sep2, after))
    again = Redactor()
    assert again.clean(once) == once
    assert again.total == 0


@PROPS
@given(st.lists(secrets, min_size=2, max_size=4), separator)
def test_several_secrets_in_one_text(found, sep):
    text = sep.join(secret for secret, _ in found)
    assume(all(text.count(p) == s.count(p) for s, parts in found for p in parts))
    out = visible(Redactor().clean(text))
    for _, parts in found:
        for part in parts:
            assert part not in out


words = st.sampled_from(
    ["tokenize", "shards", "llm", "ft", "eval", "secret", "session", "auth", "train", "bert"]
)
pod_names = st.builds(
    lambda a, b, i, j: f"{a}-{b}-{i}-{j}", words, words, st.integers(0, 63), st.integers(0, 7)
)
node_names = st.builds(
    lambda g, n: f"dgx-{g}-{n:02d}",
    st.sampled_from(["a100", "h100", "h200", "b200"]),
    st.integers(0, 99),
)
digests = st.builds(
    lambda repo, h: f"nvcr.io/nvidia/{repo}@sha256:{h}",
    st.sampled_from(["pytorch", "tensorflow", "nemo", "tritonserver"]),
    chars("0123456789abcdef", 64),
)
memory = st.one_of(
    st.builds(
        lambda n, u: f"{n}{u}", st.integers(1, 4096), st.sampled_from(["Mi", "Gi", "Ki", "Ti"])
    ),
    st.integers(0, 2**40).map(str),
)
timestamps = st.datetimes().map(lambda d: d.isoformat() + "Z")


@PROPS
@given(st.tuples(st.uuids(), pod_names, node_names, digests, memory, timestamps))
def test_clean_shapes_survive_unchanged(shapes):
    uid, pod, node, digest, mem, ts = shapes
    lines = [
        str(uid),
        f"workload {uid} ({pod}) failed at {ts}",
        f"Successfully assigned runai-nlp/{pod} to {node}",
        f'Pulling image "{digest}"',
        f"Container trainer in pod runai-nlp/{pod} was OOMKilled: memory usage reached its {mem} memory limit",
        f"Node {node} status is now: NodeNotReady",
    ]
    for line in lines:
        redactor = Redactor()
        assert redactor.clean(line) == line
        assert redactor.total == 0


hex40 = chars("0123456789abcdef", 40)
hex64 = chars("0123456789abcdef", 64)


@PROPS
@given(hex40, hex64, st.uuids(), st.sampled_from(["pytorch", "nemo", "tritonserver"]))
def test_hashes_ids_and_digests_are_not_secrets(commit, digest, uid, repo):
    """No false positives on commit hashes, UUIDs or image digests, even near key-ish words."""
    lines = [
        f"git commit {commit}",
        f"HEAD is now at {commit[:7]} fix the loss scaling",
        f"checkout {commit} (detached)",
        f"restored cache key {commit}",
        f"Pulling image nvcr.io/nvidia/{repo}@sha256:{digest}",
        f"imageID: nvcr.io/nvidia/{repo}@sha256:{digest}",
        f"request {uid} failed: token expired",
        f"failed login {uid}",
        f"pod uid {uid} session {uid}",
    ]
    for line in lines:
        redactor = Redactor()
        assert redactor.clean(line) == line
        assert redactor.total == 0


def _every_rule_in_order(text: str) -> tuple[str, dict[str, int]]:
    """The reference: every rule in order, each run when the text holds one of its hints."""
    redactor = Redactor()
    hints = {h for rule in redactor.rules for h in rule.hints}
    for rule in redactor.rules:
        present = {h for h in hints if h in text.lower()}
        if not rule.hints or not present.isdisjoint(rule.hints):
            text = redactor._apply(rule, text)
    return text, redactor.counts


@given(
    st.lists(st.one_of(secrets.map(lambda s: s[0]), surrounding, separator), min_size=1, max_size=5)
)
@settings(max_examples=300, deadline=None)
def test_only_the_rules_called_for_run_and_they_mask_what_every_rule_would(parts):
    """Choosing the rules by the hints present (and again after each mask) changes nothing."""
    text = "".join(parts)
    redactor = Redactor()
    assert (redactor.clean(text), redactor.counts) == _every_rule_in_order(text)
