"""The web app's HTTP guards: every request is checked here before a route sees it.

``Guard`` (ASGI middleware): the ``Host`` header must name this machine (an IP address, ``localhost``, or
an ``allowed_hosts`` name: no DNS rebinding), and an ``Origin`` or ``Sec-Fetch-Site`` header of a request
for ``/api/`` or ``/files/`` must say it comes from this app's own page (no cross-site requests); every
answer carries ``SECURITY_HEADERS`` (a strict content security policy, no framing, no sniffing).

The routes read their input through the bounded readers here: ``json_body`` (``application/json`` in
UTF-8, declared and read within its limit, ``MAX_BODY`` or ``MAX_UPLOAD``, the limit enforced while
reading, before the body is held whole; only the fields a route names), ``parse_json`` (nested at most
``MAX_DEPTH`` deep, integers of at most ``MAX_DIGITS`` digits, finite numbers, each key once per object),
``int_param`` (a query parameter as a bounded integer) and ``safe_file`` (a path inside a folder, never
out of it). A refused request is a ``GameError`` with its 4xx status (``fiveplay_env.experiments.web.sessions``),
answered as JSON ``{"error": message}`` (``error``).
"""
from __future__ import annotations

import ipaddress
import json
import math
import os
import re
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from fiveplay_env.experiments.web.sessions import GameError, check_int
from fiveplay_env import records

MAX_BODY = 64 * 1024
"""The largest body of a game request (bytes)."""
MAX_UPLOAD = 8 * 1024 * 1024
"""The largest body of a record upload (bytes), and the largest file of the runs folder read whole."""
MAX_DEPTH = 32
"""JSON nesting allowed in a request body (and in an uploaded record line)."""
MAX_DIGITS = 25
"""Digits allowed in one JSON integer of a request."""
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                 b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
]


class JSON(JSONResponse):
    """JSON as ASCII (a lone surrogate in a string cannot break the encoding)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def error(status: int, message: str) -> JSON:
    """The answer to a refused request: ``{"error": message}`` with its status."""
    return JSON({"error": message}, status_code=status)


def host_name(host: str) -> str:
    """The host name of a ``Host`` header (``[::1]:8000`` -> ``::1``, ``a.b:80`` -> ``a.b``), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """ASGI middleware: the ``Host`` and cross-site checks of the module docstring, and the security
    headers of every answer. ``allowed_hosts``: host names served besides IP addresses and ``localhost``."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = {h.strip().lower() for h in allowed_hosts if h and h.strip()}

    def host_ok(self, host: str) -> bool:
        name = host_name(host)
        if not name:
            return False
        if name in self.allowed or name == "localhost" or name.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")

        async def send_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=list(message.get("headers", [])) + SECURITY_HEADERS)
            await send(message)

        problem = None
        if not self.host_ok(host):
            problem = (421, f"Host: this server does not answer for {host_name(host)[:60]!r}; expected an IP address, "
                            f"localhost or a name given with --allowed-host")
        elif scope["path"].startswith(("/api/", "/files/")):
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site")
            if origin is not None and origin.lower() not in (f"http://{host}".lower(), f"https://{host}".lower()):
                problem = (403, f"Origin: expected a request from this app's own page (http://{host}), got "
                                f"{origin[:80]!r}: cross-site requests are refused")
            elif site is not None and site not in ("same-origin", "none"):
                problem = (403, f"Sec-Fetch-Site: expected same-origin, got {site[:40]!r}: cross-site requests are refused")
        if problem is not None:
            await error(*problem)(scope, receive, send_headers)
            return
        await self.app(scope, receive, send_headers)


class _Refused(ValueError):
    pass


def _json_int(s: str) -> int:
    digits = len(s.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(f"an integer of {digits} digits: expected at most {MAX_DIGITS}")
    return int(s)


def _json_float(s: str) -> float:
    if len(s) > 64:
        raise _Refused(f"a number of {len(s)} characters: expected at most 64")
    x = float(s)
    if not math.isfinite(x):
        raise _Refused(f"the number {s[:30]}: expected a finite number")
    return x


def _json_constant(s: str) -> Any:
    raise _Refused(f"{s}: expected a finite number")


json_depth = records.json_depth
"""How deep JSON text nests (``fiveplay_env.records.json_depth``: linear time, memory a small multiple of
the text's whatever it holds)."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(f"the key {k[:40]!r} appears twice in one object: expected each key once")
        out[k] = v
    return out


def parse_json(text: str, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON ``text`` with the limits of the module docstring; ``GameError`` 400 naming ``what`` otherwise."""
    depth = json_depth(text)
    if depth > max_depth:
        raise GameError(400, f"{what}: expected JSON nested at most {max_depth} deep, got {depth}")
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant,
                          object_pairs_hook=_no_repeats)
    except _Refused as e:
        raise GameError(400, f"{what}: {e}") from None
    except json.JSONDecodeError as e:
        raise GameError(400, f"{what}: expected a JSON object, got invalid JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise GameError(400, f"{what}: expected a JSON object, got invalid JSON ({type(e).__name__})") from None


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes: a larger declared ``Content-Length`` is refused before
    reading, and reading stops as soon as the limit is passed (413)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 18:
            raise GameError(400, "Content-Length: expected a number of bytes")
        if int(declared) > limit:
            raise GameError(413, f"body: expected at most {limit} bytes, got {declared} (declared)")
    buf = bytearray()
    async for chunk in request.stream():
        buf += chunk
        if len(buf) > limit:
            raise GameError(413, f"body: expected at most {limit} bytes, got more")
    return bytes(buf)


async def json_body(request: Request, limit: int = MAX_BODY, fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The request's JSON object body (``Content-Type: application/json``), with the limits of the module
    docstring; ``fields``: the keys it may have."""
    ctype = request.headers.get("content-type", "")
    media, _, params = ctype.partition(";")
    if media.strip().lower() != "application/json":
        raise GameError(415, f"Content-Type: expected application/json, got {media.strip()[:60]!r}")
    charset = params.strip().lower()
    if charset and charset.replace(" ", "") not in ("charset=utf-8", "charset=\"utf-8\""):
        raise GameError(415, f"Content-Type: expected charset=utf-8, got {charset[:40]!r}")
    body = await read_body(request, limit)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise GameError(400, "body: expected a JSON object in UTF-8") from None
    data = parse_json(text or "null", "body")
    if not isinstance(data, dict):
        raise GameError(400, f"body: expected a JSON object, got {type(data).__name__}")
    if fields is not None:
        unknown = [k for k in data if k not in fields]
        if unknown:
            raise GameError(400, f"unknown field {unknown[0][:40]!r}: expected among {list(fields)}")
    return data


def int_param(request: Request, name: str, default: int, hi: int = 10**9) -> int:
    """The query parameter ``name`` as an integer in ``0..hi`` (``default`` when absent); 400 otherwise."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not re.fullmatch(r"\d{1,10}", raw):
        raise GameError(400, f"{name}: expected an integer in 0..{hi}, got {raw[:30]!r}")
    return check_int(name, int(raw), 0, hi)


def safe_file(root: str, rel: str) -> str | None:
    """The real path of file ``rel`` inside folder ``root``, or None if it is not a file inside it
    (absolute paths, ``..``, links leading out, NUL bytes are all refused)."""
    if not rel or "\x00" in rel or os.path.isabs(rel) or rel.startswith(("/", "\\")):
        return None
    base = os.path.realpath(root)
    full = os.path.realpath(os.path.join(base, rel))
    if os.path.commonpath([base, full]) != base or full == base:
        return None
    return full
