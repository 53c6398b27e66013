"""A small HTTP session: connection settings, proxy selection, retries and cookies."""

import os
import time
import logging
from dataclasses import dataclass, field
from typing import Dict, Optional
from urllib.parse import urlparse

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0
RETRYABLE_STATUS = {429, 502, 503, 504}


class SessionError(Exception):
    """Raised when a request fails after all retries."""


@dataclass
class Response:
    status: int
    headers: Dict[str, str]
    body: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 400

    def text(self, encoding: str = "utf-8") -> str:
        return self.body.decode(encoding, errors="replace")


@dataclass
class RetryPolicy:
    total: int = 3
    backoff: float = 0.5
    statuses: set = field(default_factory=lambda: set(RETRYABLE_STATUS))

    def delay(self, attempt: int) -> float:
        # Exponential backoff: 0.5, 1, 2, ... seconds.
        return self.backoff * (2 ** attempt)

    def should_retry(self, status: int, attempt: int) -> bool:
        return status in self.statuses and attempt < self.total


def environment_proxies() -> Dict[str, str]:
    """Read proxy settings from the environment (lower case wins, like curl)."""
    proxies = {}
    for scheme in ("http", "https", "all"):
        value = os.environ.get(f"{scheme}_proxy") or os.environ.get(f"{scheme.upper()}_PROXY")
        if value:
            proxies[scheme] = value
    return proxies


def bypass_proxy(host: str) -> bool:
    """True when NO_PROXY lists the host or one of its parent domains."""
    no_proxy = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    for entry in (e.strip() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*" or host == entry or host.endswith("." + entry.lstrip(".")):
            return True
    return False


class Session:
    def __init__(self, proxies: Optional[Dict[str, str]] = None, retry: Optional[RetryPolicy] = None,
                 trust_env: bool = True, timeout: float = DEFAULT_TIMEOUT):
        self.proxies = proxies or {}
        self.retry = retry or RetryPolicy()
        self.trust_env = trust_env
        self.timeout = timeout
        self.cookies: Dict[str, str] = {}
        self.headers = {"User-Agent": "mini-http/1.0"}

    def select_proxy(self, url: str) -> Optional[str]:
        """Pick the proxy for a URL: explicit settings first, then the environment."""
        parsed = urlparse(url)
        if self.trust_env and bypass_proxy(parsed.hostname or ""):
            return None
        candidates = dict(environment_proxies()) if self.trust_env else {}
        candidates.update(self.proxies)
        for key in (f"{parsed.scheme}://{parsed.hostname}", parsed.scheme, "all"):
            if key in candidates:
                return candidates[key]
        return None

    def _merge_headers(self, extra: Optional[Dict[str, str]]) -> Dict[str, str]:
        headers = dict(self.headers)
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if extra:
            headers.update(extra)
        return headers

    def _store_cookies(self, response: Response) -> None:
        raw = response.headers.get("Set-Cookie")
        if not raw:
            return
        name, _, rest = raw.partition("=")
        self.cookies[name.strip()] = rest.split(";", 1)[0]

    def send(self, method: str, url: str, headers: Optional[Dict[str, str]] = None,
             body: bytes = b"") -> Response:
        proxy = self.select_proxy(url)
        merged = self._merge_headers(headers)
        attempt = 0
        while True:
            try:
                response = self._transport(method, url, merged, body, proxy)
            except OSError as exc:
                if attempt >= self.retry.total:
                    raise SessionError(f"{method} {url} failed: {exc}") from exc
                log.warning("connection error on %s, retrying", url)
            else:
                if not self.retry.should_retry(response.status, attempt):
                    self._store_cookies(response)
                    return response
                log.info("status %s from %s, retrying", response.status, url)
            time.sleep(self.retry.delay(attempt))
            attempt += 1

    def get(self, url: str, **kwargs) -> Response:
        return self.send("GET", url, **kwargs)

    def post(self, url: str, body: bytes = b"", **kwargs) -> Response:
        return self.send("POST", url, body=body, **kwargs)

    def _transport(self, method, url, headers, body, proxy) -> Response:
        raise NotImplementedError("plug a transport in here")
