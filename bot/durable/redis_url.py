"""A `REDIS_URL` read: standalone, Sentinel or Cluster, where, and as whom."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

__all__ = ["RedisTarget", "parse_redis_url"]


@dataclass(frozen=True)
class RedisTarget:
    """A parsed `REDIS_URL`: which kind of deployment, where, and as whom."""

    kind: Literal["standalone", "sentinel", "cluster"]
    url: str = ""  # standalone: the URL as given, for redis-py
    hosts: tuple[tuple[str, int], ...] = ()
    service: str = ""  # sentinel: the master's name
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False


def _hosts(netloc: str, default_port: int) -> tuple[tuple[str, int], ...]:
    hosts = []
    for part in netloc.rsplit("@", 1)[-1].split(","):
        host, _, port = part.strip().rpartition(":") if ":" in part else (part.strip(), "", "")
        if not host:
            raise ValueError(f"REDIS_URL host list {netloc.rsplit('@', 1)[-1]!r} has an empty host")
        if port and not port.isdigit():
            raise ValueError(f"REDIS_URL port {port!r} is not a number")
        hosts.append((host.strip("[]"), int(port) if port else default_port))
    return tuple(hosts)


def _credentials(netloc: str) -> tuple[str | None, str | None]:
    if "@" not in netloc:
        return None, None
    userinfo = netloc.rsplit("@", 1)[0]
    user, sep, password = userinfo.partition(":")
    if not sep:
        return None, unquote(user) or None  # `redis://secret@host`: a password only
    return unquote(user) or None, unquote(password) or None


def _check_standalone(url: str, scheme: str) -> None:
    """What redis-py would refuse later, or misread, said now by the variable's name."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # reading it checks it
    except ValueError as error:  # its message names the part, never the password
        raise ValueError(f"REDIS_URL is not a valid URL ({error})") from None
    db = parts.path.strip("/") if scheme != "unix" else ""
    if db and not db.isdigit():  # redis-py would quietly use database 0
        raise ValueError(f"REDIS_URL database {db!r} is not a number (redis://host:6379/0)")


def parse_redis_url(url: str) -> RedisTarget:
    """The deployment `url` names; `ValueError` says what is wrong (never echoing a password)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in {"redis", "rediss", "unix"}:
        _check_standalone(url, scheme)
        return RedisTarget("standalone", url=url)
    base, _, kind = scheme.partition("+")
    if base not in {"redis", "rediss"} or kind not in {"sentinel", "cluster"}:
        raise ValueError(
            f"REDIS_URL scheme {scheme!r} is not one of redis://, rediss://, unix://, "
            "redis+sentinel://, redis+cluster:// (or rediss+…)"
        )
    parts = urlsplit(url)
    user, password = _credentials(parts.netloc)
    path = [p for p in parts.path.split("/") if p]
    tls = base == "rediss"
    if kind == "cluster":
        if path not in ([], ["0"]):
            raise ValueError("REDIS_URL: Redis Cluster has only database 0")
        hosts = _hosts(parts.netloc, 6379)
        return RedisTarget("cluster", hosts=hosts, username=user, password=password, tls=tls)
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):  # noqa: PLR2004
        raise ValueError(
            "REDIS_URL for Sentinel must look like "
            "redis+sentinel://host1:26379,host2:26379/<master-name>/<db>"
        )
    return RedisTarget(
        "sentinel",
        hosts=_hosts(parts.netloc, 26379),
        service=unquote(path[0]),
        db=int(path[1]) if len(path) == 2 else 0,  # noqa: PLR2004
        username=user,
        password=password,
        tls=tls,
    )
