"""Optional LLM summarizer backends (Anthropic, OpenAI-compatible) for branch summaries.

The tree must keep working offline, so every backend here wraps a fallback (normally the
heuristic summarizer) and returns the fallback's result on ANY failure: SDK missing, no key,
network trouble, bad status, unusable reply. The SDKs are imported lazily so ``ihmt`` keeps
its standard-library-only runtime; they are optional extras (``ihmt[anthropic]``,
``ihmt[openai]``).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import threading
from collections import Counter
from typing import Any

from ihmt.errors import InputError
from ihmt.tree.summary import ChildDigest, NodeSummary, SummarizerBackend

from .. import re_cache

log = logging.getLogger("ihmt.tree")

PROMPT_CHAR_CAP = 12_000
TITLE_MAX = 120
SUMMARY_MAX = 600
KEYWORDS_MAX = 16
KEYWORD_MAX_CHARS = 60
FAILURES_TO_OPEN = 3

# Per-child field caps inside the prompt: a title or excerpt never needs more than this to be
# useful, and capping them leaves most of the budget for the representative text.
_PROMPT_TITLE_CAP = 200
_PROMPT_EXCERPT_CAP = 500
_PROMPT_KEYWORDS_CAP = 300
_MIN_CHILD_SHARE = 80  # below this a child entry is useless; list fewer children instead

_SYSTEM_PROMPT = (
    "You condense notes for a hierarchical long-term memory used by AI coding agents. "
    "Reply with ONE JSON object and nothing else: "
    '{"title": "<at most 120 characters>", "summary": "<at most 600 characters>", '
    '"keywords": ["<up to 16 short search keywords>"]}. '
    "The summary must say what the children have in common and what is specific to each, "
    "keeping names, file paths, commands and decisions verbatim."
)

_FENCE_RE = re_cache.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_WS_RE = re_cache.compile(r"\s+")


# --------------------------------------------------------------------------- prompt


def _clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` chars, marking the cut so the model knows text is missing."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:limit]
    return text[: limit - 1].rstrip() + "…"


def _fair_shares(demands: list[int], budget: int) -> list[int]:
    """Split ``budget`` so small demands are met in full and big ones share the rest equally."""
    shares = [0] * len(demands)
    remaining = max(budget, 0)
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    for rank, idx in enumerate(order):
        fair = remaining // (len(demands) - rank)
        shares[idx] = min(demands[idx], fair)
        remaining -= shares[idx]
    return shares


def _child_fields(child: ChildDigest) -> tuple[str, str, str, str]:
    """Normalise a child's fields (collapse whitespace) and apply the per-field caps."""
    title = _clip(_WS_RE.sub(" ", child.title or "").strip(), _PROMPT_TITLE_CAP)
    keywords = ", ".join(str(k).strip() for k in (child.keywords or []) if str(k).strip())
    keywords = _clip(keywords, _PROMPT_KEYWORDS_CAP)
    excerpt = _clip(_WS_RE.sub(" ", child.excerpt or "").strip(), _PROMPT_EXCERPT_CAP)
    text = (child.text or "").strip()
    return title, keywords, excerpt, text


def _render_child(num: int, title: str, keywords: str, excerpt: str, text: str) -> str:
    lines = [f"### Child {num}: {title or '(untitled)'}"]
    if keywords:
        lines.append(f"Keywords: {keywords}")
    if excerpt:
        lines.append(f"Excerpt: {excerpt}")
    if text:
        lines.append(f"Text:\n{text}")
    return "\n".join(lines) + "\n\n"


def build_prompt(
    children: list[ChildDigest], *, domain: str, layer: int, cap: int = PROMPT_CHAR_CAP
) -> tuple[str, str]:
    """Return ``(system, user)`` whose combined length stays within ``cap`` characters.

    Each child gets a fair share of the budget (water-filling), filled in priority order
    title > keywords > excerpt > text, so one huge child cannot crowd the others out.
    """
    header = (
        f"Domain: {domain}\nLayer: {layer}\n"
        f"Summarize these {len(children)} child notes into one parent node. "
        "Answer with the JSON object only.\n\n"
    )
    budget = cap - len(_SYSTEM_PROMPT) - len(header)
    fields = [_child_fields(c) for c in children]
    per_child_min = _MIN_CHILD_SHARE + 60  # useful content plus framing
    omitted_note = ""
    if len(fields) * per_child_min > budget:
        # Too many children to say something useful about each: list a prefix, say so.
        omitted_note = "(and {} more children omitted for length)\n"
        budget -= len(omitted_note) + 10
        shown = max(budget // per_child_min, 0)
        omitted_note = omitted_note.format(len(fields) - shown)
        fields = fields[:shown]
    framing = [len(_render_child(i + 1, "", "", "", "")) + 40 for i in range(len(fields))]
    demands = [sum(len(part) for part in f) for f in fields]
    shares = _fair_shares(demands, budget - sum(framing))
    parts = [header]
    for i, ((title, keywords, excerpt, text), share) in enumerate(zip(fields, shares, strict=True)):
        clipped = []
        for part in (title, keywords, excerpt, text):
            piece = _clip(part, share)
            share -= len(piece)
            clipped.append(piece)
        parts.append(_render_child(i + 1, *clipped))
    parts.append(omitted_note)
    user = "".join(parts)
    # Safety net: framing estimates are generous, but never exceed the cap.
    user = user[: max(cap - len(_SYSTEM_PROMPT), 0)]
    return _SYSTEM_PROMPT, user


# --------------------------------------------------------------------------- reply parsing


def _json_candidates(reply: str) -> list[Any]:
    """Every JSON object findable in ``reply``: fenced blocks first, then the whole text, then
    any object embedded in prose."""
    found: list[Any] = []
    texts = [m.group(1) for m in _FENCE_RE.finditer(reply)] + [reply]
    decoder = json.JSONDecoder()
    for text in texts:
        text = text.strip()
        try:
            found.append(json.loads(text))
            continue
        except ValueError:
            pass
        for match in re.finditer(r"\{", text):
            try:
                obj, _ = decoder.raw_decode(text, match.start())
            except ValueError:
                continue
            found.append(obj)
            break
    return found


def _clean_keywords(raw: Any) -> list[str]:
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list):
        return []
    out: list[str] = []
    seen: set[str] = set()
    for item in raw:
        if not isinstance(item, str):
            continue
        kw = _WS_RE.sub(" ", item).strip()[:KEYWORD_MAX_CHARS]
        if kw and kw.lower() not in seen:
            seen.add(kw.lower())
            out.append(kw)
        if len(out) >= KEYWORDS_MAX:
            break
    return out


def parse_reply(reply: str) -> NodeSummary | None:
    """Extract a bounded NodeSummary from a model reply, or None when nothing usable is there.

    Models wrap JSON in fences or chatter around it, so we search rather than demand purity.
    """
    if not isinstance(reply, str) or not reply.strip():
        return None
    for obj in _json_candidates(reply):
        if not isinstance(obj, dict):
            continue
        title = obj.get("title")
        summary = obj.get("summary")
        if not isinstance(title, str) or not isinstance(summary, str):
            continue
        title = _clip(_WS_RE.sub(" ", title).strip(), TITLE_MAX)
        summary = _clip(summary.strip(), SUMMARY_MAX)
        if not title or not summary:
            continue
        return NodeSummary(
            title=title, summary=summary, keywords=_clean_keywords(obj.get("keywords"))
        )
    return None


def _children_keywords(children: list[ChildDigest]) -> list[str]:
    """Most frequent child keywords: used when the model returned none, so search still works."""
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for child in children:
        for kw in child.keywords or []:
            if isinstance(kw, str) and kw.strip():
                key = kw.strip().lower()
                counts[key] += 1
                first.setdefault(key, kw.strip())
    return [first[k] for k, _ in counts.most_common(KEYWORDS_MAX)]


# --------------------------------------------------------------------------- backends


class _LLMSummarizer:
    """Shared fallback, logging and circuit-breaker logic; subclasses only talk to an SDK."""

    name = "llm"
    _sdk_module = ""

    def __init__(
        self,
        fallback: SummarizerBackend,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        timeout: float,
        max_tokens: int,
    ) -> None:
        self.fallback = fallback
        self.model = model
        self.timeout = float(timeout)
        self.max_tokens = int(max_tokens)
        self._api_key = api_key
        self.base_url = base_url
        self._client: Any = None
        self._sdk: Any = None
        self._disabled = False  # permanent: SDK missing or no key
        self._disabled_reason = ""
        self._consecutive_failures = 0
        self._circuit_open = False
        self._logged: set[str] = set()
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    # -- hooks for subclasses
    def _make_client(self, sdk: Any) -> Any:
        raise NotImplementedError

    def _complete(self, client: Any, system: str, user: str) -> str:
        raise NotImplementedError

    # -- shared machinery
    def _warn_once(self, kind: str, message: str) -> None:
        with self._lock:
            if kind in self._logged:
                return
            self._logged.add(kind)
        log.warning(
            "%s summarizer (%s): %s; using %s fallback",
            self.name,
            kind,
            message,
            getattr(self.fallback, "name", "heuristic"),
        )

    def _fallback(self, children: list[ChildDigest], domain: str, layer: int) -> NodeSummary:
        return self.fallback.summarize(children, domain=domain, layer=layer)

    def _get_client(self) -> Any:
        """Create the SDK client once; None (and a logged reason) when that is impossible."""
        if self._client is not None or self._disabled:
            return self._client
        if not self._api_key:
            self._disabled = True
            self._disabled_reason = "no API key configured"
            self._warn_once("no-key", self._disabled_reason)
            return None
        try:
            sdk = importlib.import_module(self._sdk_module)
        except ImportError:
            self._disabled = True
            self._disabled_reason = (
                f"the '{self._sdk_module}' package is not installed "
                f"(pip install 'ihmt[{self._sdk_module}]')"
            )
            self._warn_once("sdk-missing", self._disabled_reason)
            return None
        try:
            self._sdk = sdk
            self._client = self._make_client(sdk)
        except Exception as exc:  # bad base_url and the like: treat as permanent
            self._disabled = True
            self._disabled_reason = f"cannot create client: {_describe(exc)}"
            self._warn_once("client-error", self._disabled_reason)
            return None
        return self._client

    def _classify(self, exc: Exception) -> str:
        sdk = self._sdk
        for kind, attr in (
            ("timeout", "APITimeoutError"),
            ("connection", "APIConnectionError"),
            ("http-status", "APIStatusError"),
        ):
            cls = getattr(sdk, attr, None)
            if isinstance(cls, type) and isinstance(exc, cls):
                return kind
        return "error"

    def _record_failure(self, kind: str, message: str) -> None:
        self._warn_once(kind, message)
        with self._lock:
            self._consecutive_failures += 1
            tripped = self._consecutive_failures >= FAILURES_TO_OPEN and not self._circuit_open
            if tripped:
                self._circuit_open = True
        if tripped:
            self._warn_once(
                "circuit-open",
                f"{FAILURES_TO_OPEN} consecutive failures, not calling the API again",
            )

    def complete(self, system: str, user: str, timeout: float | None = None) -> str:
        """One request to the model for a caller that keeps its own fallback (capture restating
        what it keeps): the reply's text, or an exception saying why there is none (no key, SDK
        missing, network, bad status, timeout, the circuit breaker open). ``timeout`` (seconds)
        bounds this request below the client's own. Failures count toward the breaker."""
        if self._circuit_open:
            raise RuntimeError(
                f"{FAILURES_TO_OPEN} consecutive failures; not calling the API again"
            )
        client = self._get_client()
        if client is None:
            raise RuntimeError(self._disabled_reason or "the model's client is unavailable")
        if timeout is not None and hasattr(client, "with_options"):
            client = client.with_options(timeout=max(0.1, min(float(timeout), self.timeout)))
        try:
            reply = self._complete(client, system, user)
        except Exception as exc:
            self._record_failure(self._classify(exc), f"request failed: {_describe(exc)}")
            raise RuntimeError(_describe(exc)) from None
        with self._lock:
            self._consecutive_failures = 0
        return reply if isinstance(reply, str) else ""

    def summarize(self, children: list[ChildDigest], *, domain: str, layer: int) -> NodeSummary:
        """Ask the model for a summary; on any failure return the fallback's summary instead."""
        if self._circuit_open or not children:
            return self._fallback(children, domain, layer)
        client = self._get_client()
        if client is None:
            return self._fallback(children, domain, layer)
        system, user = build_prompt(children, domain=domain, layer=layer)
        try:
            reply = self._complete(client, system, user)
        except Exception as exc:
            kind = self._classify(exc)
            self._record_failure(kind, f"request failed: {_describe(exc)}")
            return self._fallback(children, domain, layer)
        parsed = parse_reply(reply)
        if parsed is None:
            self._record_failure("bad-reply", "reply had no JSON object with title and summary")
            return self._fallback(children, domain, layer)
        with self._lock:
            self._consecutive_failures = 0
        if not parsed.keywords:
            parsed.keywords = _children_keywords(children)
        return parsed


def _describe(exc: BaseException) -> str:
    text = _WS_RE.sub(" ", str(exc)).strip()
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


class AnthropicSummarizer(_LLMSummarizer):
    """Summaries from Claude via the official ``anthropic`` SDK (Messages API)."""

    name = "anthropic"
    _sdk_module = "anthropic"

    def __init__(
        self,
        fallback: SummarizerBackend,
        *,
        model: str = "claude-sonnet-5",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_tokens: int = 400,
    ) -> None:
        super().__init__(
            fallback,
            model=model,
            api_key=api_key or os.environ.get("ANTHROPIC_API_KEY") or None,
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            timeout=timeout,
            max_tokens=max_tokens,
        )

    def _make_client(self, sdk: Any) -> Any:
        return sdk.Anthropic(
            api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
        )

    def _complete(self, client: Any, system: str, user: str) -> str:
        response = client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=system,
            messages=[{"role": "user", "content": user}],
        )
        blocks = getattr(response, "content", None) or []
        return "".join(
            getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", "") == "text"
        )


class OpenAICompatibleSummarizer(_LLMSummarizer):
    """Summaries from any chat-completions endpoint: OpenAI, Ollama, LM Studio, vLLM, ..."""

    name = "openai"
    _sdk_module = "openai"

    def __init__(
        self,
        fallback: SummarizerBackend,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_tokens: int = 400,
    ) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if not key and base_url:
            key = "not-needed"  # local runtimes ignore the key, but the SDK insists on one
        super().__init__(
            fallback,
            model=model,
            api_key=key,
            base_url=base_url,
            timeout=timeout,
            max_tokens=max_tokens,
        )

    def _make_client(self, sdk: Any) -> Any:
        return sdk.OpenAI(
            api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
        )

    def _complete(self, client: Any, system: str, user: str) -> str:
        response = client.chat.completions.create(
            model=self.model,
            max_tokens=self.max_tokens,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        )
        choices = getattr(response, "choices", None) or []
        if not choices:
            return ""
        message = getattr(choices[0], "message", None)
        return getattr(message, "content", None) or ""


# --------------------------------------------------------------------------- factory

_LOCAL_DEFAULTS = {
    "ollama": "http://127.0.0.1:11434/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
}
_OPENAI_NAMES = ("openai", "openai-compatible", "ollama", "lmstudio")
VALID_BACKENDS = ("heuristic", "anthropic", *_OPENAI_NAMES)


def make_backend(
    name: str, *, model: str | None, base_url: str | None, fallback: SummarizerBackend
) -> SummarizerBackend:
    """Pick a summarizer by name; every LLM backend falls back to ``fallback`` on failure."""
    key = (name or "").strip().lower()
    if key == "heuristic":
        return fallback
    if key == "anthropic":
        if model:
            return AnthropicSummarizer(fallback, model=model, base_url=base_url)
        return AnthropicSummarizer(fallback, base_url=base_url)
    if key in _OPENAI_NAMES:
        return OpenAICompatibleSummarizer(
            fallback,
            model=model or "llama3.1",
            base_url=base_url or _LOCAL_DEFAULTS.get(key),
        )
    raise InputError(
        f"unknown summarizer backend {name!r}; valid names: {', '.join(VALID_BACKENDS)}"
    )
