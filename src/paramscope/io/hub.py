"""Models on the Hugging Face Hub: a ``config.json`` by id, and the parameter count a checkpoint stores.

Everything that comes from the Hub (or from whoever typed the id) is untrusted input:

* ids and revisions are checked strictly (:func:`validate_repo_id`, :func:`validate_revision`) before any request;
* only ``config.json`` is downloaded (at most :data:`MAX_CONFIG_BYTES`, refused from the Hub's size before the
  download and checked again after it) and parsed as plain JSON;
* a checkpoint is never downloaded: :func:`checkpoint_tensors` reads ``model.safetensors.index.json`` and the JSON
  header of each safetensors file by HTTP Range requests (8 bytes, then exactly the header);
* every failure becomes one :class:`HubError` line, ``hub id: ...`` (``revision: ...`` for the revision).

All network access goes through ``huggingface_hub`` (2.x, over ``httpx2``), so ``HF_ENDPOINT``, ``HF_HUB_OFFLINE``,
``HF_TOKEN`` (read only when ``token`` is None) and the Hugging Face cache behave as they do for ``huggingface_hub``.
Note that ``huggingface_hub`` reads ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE`` once, at import.

Timeouts: ``timeout`` bounds each request this module makes (the metadata HEAD request and each Range request) and is
passed as ``etag_timeout`` to ``hf_hub_download``. The download request inside ``hf_hub_download`` uses
``HF_HUB_DOWNLOAD_TIMEOUT`` (10 s by default), and ``HF_HUB_ETAG_TIMEOUT``, when set, overrides ``etag_timeout`` there.
"""

from __future__ import annotations

import json
import math
import re
import struct
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url, try_to_load_from_cache
from huggingface_hub.errors import (
    EntryNotFoundError,
    FileMetadataError,
    GatedRepoError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status, parse_ratelimit_headers

from paramscope.io.config_json import MAX_CONFIG_BYTES, loads
from paramscope.model import Model

#: The largest ``model.safetensors.index.json`` accepted (bytes). The largest real ones are under 10 MB.
MAX_INDEX_BYTES = 50_000_000
#: The largest safetensors JSON header read (bytes), as huggingface_hub's own ``SAFETENSORS_MAX_HEADER_LENGTH``.
MAX_HEADER_BYTES = 25_000_000
#: The most shard files one index may list.
MAX_SHARDS = 4096
#: The most header bytes read over all of a checkpoint's files (the largest real checkpoints' headers add up to a
#: few MB: DeepSeek-V3's 163 shards, 9 MB), refused from the announced lengths before any header is read.
MAX_HEADERS_TOTAL = 64_000_000
#: The most elements one tensor, and one checkpoint, may hold: 10^15, as many parameters as a config may build.
MAX_ELEMENTS = 10**15
MAX_REPO_ID = 96
MAX_REVISION = 100

CONFIG_FILE = "config.json"
SAFETENSORS_FILE = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"

_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
_REVISION = re.compile(r"[A-Za-z0-9._/-]+")
_SHARD = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*\.safetensors")
_DTYPE = re.compile(r"[A-Z][A-Z0-9_]{0,15}")
_LAYER = re.compile(r"(?:^|\.)(?:model|language_model)\.layers\.(\d+)\.")
_MAX_DIM = 1 << 48
_READ_WORKERS = 8
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class HubError(ValueError):
    """One line saying what went wrong with a Hub id or a request to the Hub.

    ``kind`` names the failure for callers that react to it: ``invalid``, ``not_found``, ``gated``, ``revision``,
    ``no_file``, ``offline``, ``unreachable``, ``timeout``, ``rate_limited``, ``http``, ``too_large``, ``malformed``.
    """

    def __init__(self, message: str, kind: str = "invalid") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class CheckpointCount:
    """What a checkpoint's safetensors files store, read from their headers only.

    ``total`` counts stored elements: quantized weights count as stored (packed), so it can differ from the model's
    own parameter count; :func:`tensor_groups` sorts the usual reasons out.
    """

    total: int  # elements over all tensors of all files
    by_dtype: dict[str, int]  # safetensors dtype ("BF16", "F8_E4M3", "U8", ...) -> elements
    tensors: dict[str, tuple[str, tuple[int, ...]]]  # tensor name -> (dtype, shape)
    files: int  # safetensors files read


# ------------------------------------------------------------------------------------------------ validation
def _show(text: str, limit: int = 60) -> str:
    """A short, quoted, escaped rendering of untrusted text for a message (never the whole of a long input, and at
    most ``limit`` characters of its escaped form: control characters and astral ones escape to up to 10 each)."""
    shown = repr(text[:limit])
    if len(shown) > limit + 2:
        return shown[: limit + 1] + "…"
    return shown + ("…" if len(text) > limit else "")


def validate_repo_id(text: str) -> str:
    """Return ``text`` if it is a Hub model id ``ORG/NAME``; raise :class:`HubError` naming what is wrong.

    Each part is ASCII letters, digits, ``-``, ``_``, ``.``, neither starting nor ending with ``.`` or ``-``; no
    ``..`` or ``--`` (huggingface_hub refuses them too), no ``.git`` ending, at most 96 characters, no links.
    """
    if not isinstance(text, str):
        raise HubError(f"hub id: expected text, got {type(text).__name__}")
    if not text:
        raise HubError("hub id: empty; type ORG/NAME, e.g. openai-community/gpt2")
    if len(text) > MAX_REPO_ID:
        raise HubError(f"hub id: {len(text):,} characters; the limit is {MAX_REPO_ID}")
    lowered = text.lower()
    if "://" in text or lowered.startswith(("http:", "https:", "www.", "hf.co/", "huggingface.co/")):
        raise HubError(f"hub id: {_show(text)} is a link; type only ORG/NAME, e.g. openai-community/gpt2")
    bad = sorted({c for c in text if c not in _ID_CHARS and c != "/"})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        raise HubError(f"hub id: {_show(text)} has characters not allowed ({shown}); use letters, digits, - _ .")
    if text.count("/") != 1:
        raise HubError(f"hub id: {_show(text)} must be ORG/NAME with exactly one '/'")
    for label, part in zip(("organisation", "name"), text.split("/"), strict=True):
        if not part:
            raise HubError(f"hub id: the {label} in {_show(text)} is empty")
        if part[0] in ".-" or part[-1] in ".-":
            raise HubError(f"hub id: the {label} {_show(part)} starts or ends with '.' or '-'")
    if ".." in text or "--" in text:
        raise HubError(f"hub id: {_show(text)} contains '..' or '--'")
    if lowered.endswith(".git"):
        raise HubError(f"hub id: {_show(text)} ends with '.git'; type ORG/NAME")
    return text


def looks_like_repo_id(text: str) -> bool:
    """True when ``text`` is a valid ``ORG/NAME`` Hub id (a preset name never holds a slash)."""
    try:
        validate_repo_id(text)
    except HubError:
        return False
    return True


def validate_revision(text: str) -> str:
    """Return ``text`` if it is a branch, tag or commit name; raise :class:`HubError` (``revision: ...``) if not.

    Letters, digits, ``-``, ``_``, ``.``, ``/``; not starting with ``/`` or ``-``; no ``..``, ``//`` or trailing
    ``/``; at most 100 characters.
    """
    if not isinstance(text, str):
        raise HubError(f"revision: expected text, got {type(text).__name__}")
    if not text:
        raise HubError("revision: empty; use a branch, tag or commit, e.g. main")
    if len(text) > MAX_REVISION:
        raise HubError(f"revision: {len(text):,} characters; the limit is {MAX_REVISION}")
    if not _REVISION.fullmatch(text):
        raise HubError(f"revision: {_show(text)} has characters not allowed; use letters, digits, - _ . /")
    if text[0] in "/-":
        raise HubError(f"revision: {_show(text)} starts with '{text[0]}'")
    if ".." in text or "//" in text or text.endswith("/"):
        raise HubError(f"revision: {_show(text)} contains '..', '//' or ends with '/'")
    return text


def _check_timeout(timeout: float) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 600:
        raise ValueError(f"timeout: expected seconds in (0, 600], got {timeout!r}")
    return float(timeout)


# ------------------------------------------------------------------------------------------------ errors
@dataclass(frozen=True)
class _Where:
    """What a request was for, to word its error."""

    repo_id: str
    revision: str
    filename: str
    timeout: float
    cacheable: bool = True  # whether the local cache could have answered instead


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and its causes (bounded: chains can be cyclic)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        yield current
        if current.__cause__ is not None:
            current = current.__cause__
        else:
            current = None if current.__suppress_context__ else current.__context__


def _status(exc: BaseException) -> int | None:
    return exc.response.status_code if isinstance(exc, HfHubHTTPError) else None


def _is_transient(exc: BaseException) -> bool:
    """A failure the local cache may cover: no connection, a timeout, offline mode, rate limiting, Hub downtime."""
    status = _status(exc)
    if status is not None:
        return status in (408, 429) or status >= 500
    return isinstance(exc, httpx2.TransportError | OfflineModeIsEnabled | FileMetadataError)


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def _error(exc: BaseException, where: _Where) -> HubError:
    """The one-line :class:`HubError` for a failure of huggingface_hub (or httpx2) while fetching ``where``."""
    if isinstance(exc, HubError):
        return exc
    repo, name, endpoint = where.repo_id, where.filename, constants.ENDPOINT
    not_cached = f" and {name} of '{repo}' is not in the local cache" if where.cacheable else ""
    for cause in _chain(exc):  # LocalEntryNotFoundError carries the network failure as its cause
        if isinstance(cause, GatedRepoError):  # before RepositoryNotFoundError, its base class
            return HubError(
                f"hub id: '{repo}' is gated: accept its terms on the Hub, then set HF_TOKEN to a token with access"
                " (this page cannot take a token: paste the config.json instead)",
                "gated",
            )
        if isinstance(cause, RepositoryNotFoundError):
            return HubError(f"hub id: no model '{repo}' on the Hub (or it is private)", "not_found")
        if isinstance(cause, RevisionNotFoundError):
            return HubError(f"revision: '{repo}' has no branch, tag or commit '{where.revision}'", "revision")
        if isinstance(cause, RemoteEntryNotFoundError):
            return HubError(f"hub id: '{repo}' has no {name} (revision '{where.revision}')", "no_file")
        if isinstance(cause, OfflineModeIsEnabled):
            return HubError(
                f"hub id: cannot reach the Hub at {endpoint}: offline mode (HF_HUB_OFFLINE){not_cached}", "offline"
            )
        if isinstance(cause, httpx2.TimeoutException):
            return HubError(f"hub id: the Hub at {endpoint} timed out after {where.timeout:g} s{not_cached}", "timeout")
        if isinstance(cause, httpx2.TransportError):
            return HubError(
                f"hub id: cannot reach the Hub at {endpoint} ({type(cause).__name__}){not_cached}", "unreachable"
            )
        if isinstance(cause, HfHubHTTPError):
            status = cause.response.status_code
            if status == 429:
                info = parse_ratelimit_headers(cause.response.headers)
                wait = f" in {info.reset_in_seconds} s" if info is not None and info.remaining == 0 else " later"
                return HubError(
                    f"hub id: the Hub is rate limiting requests (HTTP 429); try again{wait}", "rate_limited"
                )
            if status in (401, 403):
                return HubError(f"hub id: the Hub refused access to '{repo}' (HTTP {status}); check HF_TOKEN", "http")
            return HubError(f"hub id: the Hub at {endpoint} answered HTTP {status} for {name} of '{repo}'", "http")
        if isinstance(cause, FileMetadataError):
            return HubError(
                f"hub id: {endpoint} does not answer like the Hugging Face Hub (check HF_ENDPOINT)", "unreachable"
            )
    if isinstance(exc, LocalEntryNotFoundError | EntryNotFoundError) or constants.is_offline_mode():
        return HubError(f"hub id: cannot reach the Hub at {endpoint}{not_cached}", "unreachable")
    return HubError(f"hub id: could not fetch {name} of '{repo}': {_first_line(exc)}", "http")


# ------------------------------------------------------------------------------------------------ small files
def _read_cached(path: str, limit: int, where: _Where) -> bytes:
    size = Path(path).stat().st_size
    if size > limit:
        raise _too_large(size, limit, where)
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise _too_large(len(data), limit, where)
    return data


def _too_large(size: int, limit: int, where: _Where) -> HubError:
    return HubError(
        f"hub id: {where.filename} of '{where.repo_id}' is {size:,} bytes; the limit is {limit:,}", "too_large"
    )


def _cached(where: _Where) -> str | None:
    """The cached copy of the file for that revision, as huggingface_hub's cache holds it, or None."""
    path = try_to_load_from_cache(where.repo_id, where.filename, revision=where.revision)
    return path if isinstance(path, str) else None


def _fetch_small(where: _Where, token: str | bool | None, limit: int) -> bytes:
    """Bytes of a small file of the repo: its announced size checked first, then downloaded by :func:`_download`
    (bounded by what is read, not by what the server says) and kept in the HF cache.

    Offline, or when the Hub cannot be reached, times out, rate-limits or fails (5xx), the cached copy answers as in
    huggingface_hub; a definite answer (no such repo, gated, no such revision or file) is never covered by the cache.
    """
    if constants.is_offline_mode():
        path = _cached(where)
        if path is None:
            raise _error(OfflineModeIsEnabled("offline"), where)
        return _read_cached(path, limit, where)
    url = hf_hub_url(where.repo_id, where.filename, revision=where.revision)
    try:
        meta = get_hf_file_metadata(url, token=token, timeout=where.timeout)
    except Exception as exc:
        path = _cached(where) if _is_transient(exc) else None
        if path is None:
            raise _error(exc, where) from None
        return _read_cached(path, limit, where)
    if meta.size is not None and meta.size > limit:
        raise _too_large(meta.size, limit, where)
    try:
        data, commit = _download(url, token, limit, where)
    except HubError:
        raise
    except Exception as exc:
        raise _error(exc, where) from None
    _keep(where, commit or meta.commit_hash, data)
    return data


#: The longest a small file's whole download may take, in units of the per-request timeout.
DOWNLOAD_TIMEOUTS = 2


def _download(url: str, token: str | bool | None, limit: int, where: _Where) -> tuple[bytes, str | None]:
    """The file's bytes, bounded by what arrives: at most ``limit`` bytes (more is refused as soon as it arrives), no
    compressed body (a small gzip can expand a thousandfold), and the whole transfer within DOWNLOAD_TIMEOUTS ×
    ``where.timeout`` (a server sending a byte a second is cut off); and the commit the Hub says it served."""
    headers = build_hf_headers(token=token)
    headers["Accept-Encoding"] = "identity"
    deadline = time.monotonic() + DOWNLOAD_TIMEOUTS * where.timeout
    with get_session().stream("GET", url, headers=headers, timeout=where.timeout) as response:
        _raise_for_status(response)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise HubError(
                f"hub id: {where.filename} of '{where.repo_id}' came compressed ({_show(encoding, 20)}) though "
                "asked for plain bytes",
                "malformed",
            )
        buf = bytearray()
        for chunk in response.iter_raw():
            buf += chunk
            if len(buf) > limit:  # the size it would have had is not waited for
                raise HubError(
                    f"hub id: {where.filename} of '{where.repo_id}' is over {limit:,} bytes (the limit); refused as "
                    "it arrived",
                    "too_large",
                )
            if time.monotonic() > deadline:
                raise HubError(
                    f"hub id: {where.filename} of '{where.repo_id}' took over {DOWNLOAD_TIMEOUTS * where.timeout:g} s "
                    "to arrive",
                    "timeout",
                )
        commit = response.headers.get("x-repo-commit")
    return bytes(buf), commit


_COMMIT = re.compile(r"[0-9a-f]{40}")


def _keep(where: _Where, commit: str | None, data: bytes) -> None:
    """Put the file in the HF cache where ``try_to_load_from_cache`` finds it (``refs/REVISION`` naming the commit,
    ``snapshots/COMMIT/FILE``), every path part from a validated id, revision and file name and a 40-hex commit: no
    name the server sends places a file. A commit that is no such hash is not kept (the answer still is)."""
    if not commit or not _COMMIT.fullmatch(commit):
        return
    repo = Path(constants.HF_HUB_CACHE) / ("models--" + where.repo_id.replace("/", "--"))
    writes = [(repo / "snapshots" / commit / where.filename, data)]
    if where.revision != commit:  # a branch or tag names its commit; a commit needs no ref
        writes.append((repo / "refs" / where.revision, commit.encode()))
    try:
        for path, content in writes:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".incomplete")
            tmp.write_bytes(content)
            tmp.replace(path)
    except OSError:  # a read-only or full cache: the answer stands, uncached
        return


def _parse_json(raw: bytes, what: str) -> Any:
    """Strict JSON (``config_json.loads``): UTF-8, no NaN, no absurd integers, not nested without end."""
    try:
        return loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise HubError(f"hub id: {what} is not UTF-8 text (byte {exc.start})", "malformed") from None
    except json.JSONDecodeError as exc:
        raise HubError(
            f"hub id: {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", "malformed"
        ) from None
    except RecursionError:
        raise HubError(f"hub id: {what} is nested too deeply", "malformed") from None
    except ValueError as exc:
        raise HubError(f"hub id: {what} is not plain JSON ({exc})", "malformed") from None


def fetch_config(
    repo_id: str, revision: str = "main", *, timeout: float = 8.0, token: str | bool | None = None
) -> dict[str, Any]:
    """The ``config.json`` of a Hub model as a dict; raise :class:`HubError` (one line) on any failure.

    Only config.json is downloaded, through ``huggingface_hub`` (and its cache). A file over
    :data:`MAX_CONFIG_BYTES` is refused from the Hub's announced size, before the download, and again after it.
    ``token`` None lets huggingface_hub use ``HF_TOKEN`` or the saved login; False sends no token at all (the page).
    """
    where = _Where(validate_repo_id(repo_id), validate_revision(revision), CONFIG_FILE, _check_timeout(timeout))
    data = _parse_json(_fetch_small(where, token, MAX_CONFIG_BYTES), f"config.json of '{where.repo_id}'")
    if not isinstance(data, dict):
        raise HubError(f"hub id: config.json of '{where.repo_id}' is not a JSON object ({{...}})", "malformed")
    return data


def from_hub(repo_id: str, revision: str = "main", *, timeout: float = 8.0, token: str | bool | None = None) -> Model:
    """The model a Hub repo's config.json builds, ready to edit (origin ``hub:ORG/NAME@REVISION``).

    :class:`HubError` (one line) when the config cannot be fetched; ``SpecError`` naming the key when it cannot be
    counted.
    """
    config = fetch_config(repo_id, revision, timeout=timeout, token=token)
    return Model.from_config(config, origin=f"hub:{repo_id}@{revision}")


# ------------------------------------------------------------------------------------------------ safetensors
def _exists(where: _Where, token: str | bool | None) -> bool:
    """Whether the file exists in the repo (HEAD request); other failures raise :class:`HubError`."""
    try:
        get_hf_file_metadata(
            hf_hub_url(where.repo_id, where.filename, revision=where.revision), token=token, timeout=where.timeout
        )
    except RemoteEntryNotFoundError:
        return False
    except Exception as exc:
        raise _error(exc, where) from None
    return True


def _shard_names(where: _Where, token: str | bool | None) -> list[str] | None:
    """The safetensors files of the repo: ``model.safetensors``, or the shards its index lists; None if neither."""
    if _exists(where, token):
        return [SAFETENSORS_FILE]
    index = _Where(where.repo_id, where.revision, SAFETENSORS_INDEX, where.timeout)
    try:
        raw = _fetch_small(index, token, MAX_INDEX_BYTES)
    except HubError as exc:
        if exc.kind == "no_file":
            return None
        raise
    data = _parse_json(raw, f"{SAFETENSORS_INDEX} of '{where.repo_id}'")
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise HubError(f"hub id: {SAFETENSORS_INDEX} of '{where.repo_id}' has no weight_map of file names", "malformed")
    shards = sorted(set(weight_map.values()))
    bad = [s for s in shards if len(s) > 200 or ".." in s or not _SHARD.fullmatch(s)]
    if bad:
        raise HubError(
            f"hub id: {SAFETENSORS_INDEX} of '{where.repo_id}' names a file not allowed: {_show(bad[0])}", "malformed"
        )
    if not shards or len(shards) > MAX_SHARDS:
        raise HubError(f"hub id: {SAFETENSORS_INDEX} of '{where.repo_id}' lists {len(shards):,} files", "malformed")
    return shards


def _read_at_most(response: httpx2.Response, limit: int) -> bytes:
    """At most ``limit`` bytes of a streamed body, whatever the server sends after them."""
    buf = bytearray()
    for chunk in response.iter_bytes():
        buf += chunk
        if len(buf) >= limit:
            break
    return bytes(buf[:limit])


def _raise_for_status(response: httpx2.Response) -> None:
    """An error answer of a streamed request raised as huggingface_hub words it, from its headers and a bounded body
    (read here, already decoded)."""
    if response.status_code >= 400:
        body = _read_at_most(response, 65_536)
        kept = {k: v for k, v in response.headers.items() if k.lower() not in _BODY_HEADERS}
        hf_raise_for_status(httpx2.Response(response.status_code, headers=kept, content=body, request=response.request))


def _read_range(url: str, start: int, end: int, headers: dict[str, str], where: _Where) -> bytes:
    """Bytes ``start..end`` (inclusive) of a file, by one Range request; never more, even if the range is ignored."""
    want = end - start + 1
    request_headers = {**headers, "Range": f"bytes={start}-{end}"}
    with get_session().stream("GET", url, headers=request_headers, timeout=where.timeout) as response:
        _raise_for_status(response)
        skip = start if response.status_code == 200 else 0  # the server ignored the range and sends the whole file
        data = _read_at_most(response, skip + want)[skip:]
    if response.status_code not in (200, 206) or len(data) != want:
        raise HubError(
            f"hub id: {where.filename} of '{where.repo_id}' is too short for a safetensors file "
            f"(HTTP {response.status_code}, {len(data)} of {want} bytes)",
            "malformed",
        )
    return data


def _parse_header(raw: bytes, where: _Where) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Tensor name -> (dtype, shape) from a safetensors JSON header, every entry checked."""
    what = f"the safetensors header of {where.filename} of '{where.repo_id}'"
    data = _parse_json(raw, what)
    if not isinstance(data, dict):
        raise HubError(f"hub id: {what} is not a JSON object", "malformed")
    out: dict[str, tuple[str, tuple[int, ...]]] = {}
    for name, info in data.items():
        if name == "__metadata__":
            continue
        dtype = info.get("dtype") if isinstance(info, dict) else None
        shape = info.get("shape") if isinstance(info, dict) else None
        if (
            not isinstance(dtype, str)
            or not _DTYPE.fullmatch(dtype)
            or not isinstance(shape, list)
            or len(shape) > 16
            or not all(type(d) is int and 0 <= d < _MAX_DIM for d in shape)
            or math.prod(shape) > MAX_ELEMENTS
        ):
            raise HubError(f"hub id: {what} has a malformed entry for {_show(name)}", "malformed")
        out[name] = (dtype, tuple(shape))
    return out


def _header_length(where: _Where, headers: dict[str, str]) -> int:
    """The length of a safetensors file's JSON header: its first 8 bytes, checked against MAX_HEADER_BYTES."""
    url = hf_hub_url(where.repo_id, where.filename, revision=where.revision)
    try:
        (size,) = struct.unpack("<Q", _read_range(url, 0, 7, headers, where))
    except Exception as exc:
        raise _error(exc, where) from None
    if not 2 <= size <= MAX_HEADER_BYTES:
        raise HubError(
            f"hub id: {where.filename} of '{where.repo_id}' announces a {size:,}-byte header; "
            f"the limit is {MAX_HEADER_BYTES:,}",
            "malformed",
        )
    return size


def _read_header(where: _Where, size: int, headers: dict[str, str]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The tensors of one safetensors file: exactly its ``size``-byte JSON header, after the 8-byte length."""
    url = hf_hub_url(where.repo_id, where.filename, revision=where.revision)
    try:
        raw = _read_range(url, 8, 8 + size - 1, headers, where)
    except Exception as exc:
        raise _error(exc, where) from None
    return _parse_header(raw, where)


def checkpoint_tensors(
    repo_id: str, revision: str = "main", *, timeout: float = 8.0, token: str | bool | None = None
) -> CheckpointCount | None:
    """The parameter count the checkpoint stores, from safetensors headers only; None if it has no safetensors.

    Reads ``model.safetensors`` or, failing that, ``model.safetensors.index.json`` and each shard it lists: for each
    file two Range requests (the 8-byte header length, then the JSON header), never a byte of tensor data.
    """
    where = _Where(
        validate_repo_id(repo_id),
        validate_revision(revision),
        SAFETENSORS_FILE,
        _check_timeout(timeout),
        cacheable=False,
    )
    names = _shard_names(where, token)
    if names is None:
        return None
    try:
        headers = build_hf_headers(token=token)
    except Exception as exc:
        raise _error(exc, where) from None
    headers["Accept-Encoding"] = "identity"
    files = [_Where(where.repo_id, where.revision, name, where.timeout, cacheable=False) for name in names]
    with ThreadPoolExecutor(max_workers=min(_READ_WORKERS, len(files))) as pool:
        sizes = list(pool.map(lambda w: _header_length(w, headers), files))
        if sum(sizes) > MAX_HEADERS_TOTAL:
            raise HubError(
                f"hub id: the {len(files):,} safetensors files of '{where.repo_id}' announce {sum(sizes):,} bytes of "
                f"headers; the limit is {MAX_HEADERS_TOTAL:,}",
                "too_large",
            )
        headers_read = list(pool.map(lambda w, n: _read_header(w, n, headers), files, sizes))
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    for file, found in zip(files, headers_read, strict=True):
        twice = next((name for name in found if name in tensors), None)
        if twice is not None:
            raise HubError(f"hub id: tensor {_show(twice)} is stored twice (again in {file.filename})", "malformed")
        tensors.update(found)
    by_dtype: dict[str, int] = {}
    for dtype, shape in tensors.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + math.prod(shape)
    if sum(by_dtype.values()) > MAX_ELEMENTS:
        raise HubError(
            f"hub id: the checkpoint of '{where.repo_id}' claims {sum(by_dtype.values()):.3g} elements; the limit is "
            f"{MAX_ELEMENTS:.0e}",
            "malformed",
        )
    return CheckpointCount(total=sum(by_dtype.values()), by_dtype=by_dtype, tensors=tensors, files=len(files))


# ------------------------------------------------------------------------------------------------ explaining
#: The groups of :func:`tensor_groups`, in the order a tensor is matched (first match wins), in plain words.
GROUPS: dict[str, str] = {
    "towers": "vision / audio towers and their projector (vision_tower, visual, vision_model, audio_tower, qformer, "
    "...)",
    "mtp": "multi-token-prediction layers (.mtp., or layers numbered from num_hidden_layers on)",
    "e_score_correction_bias": "MoE router score-correction biases (stored, not trained)",
    "quantization": "quantized weights and their scales (MXFP4 _blocks/_scales, GPTQ/AWQ, fp8 weight_scale)",
    "tied_lm_head": "lm_head.weight stored although tied to the token embedding",
    "other": "everything else",
}
#: BLIP-2's: vision_model, its Q-Former (qformer), query_tokens and language_projection
_TOWERS = frozenset(
    {"vision_tower", "visual", "vision_model", "audio_tower", "multi_modal_projector"}
    | {"qformer", "query_tokens", "language_projection"}
)
_QUANT_NAMES = frozenset({"qweight", "qzeros", "scales", "g_idx", "weight_scale", "weight_scale_inv", "input_scale"})
_QUANT_SUFFIXES = ("_blocks", "_scales")


def _group(name: str, num_hidden_layers: int | None, tied: bool) -> str:
    parts = name.split(".")
    if _TOWERS.intersection(parts):
        return "towers"
    layer = _LAYER.search(name)
    if "mtp" in parts or (num_hidden_layers is not None and layer is not None and int(layer[1]) >= num_hidden_layers):
        return "mtp"
    last = parts[-1]
    if last == "e_score_correction_bias":
        return "e_score_correction_bias"
    if last in _QUANT_NAMES or last.endswith(_QUANT_SUFFIXES):
        return "quantization"
    if tied and parts[-2:] == ["lm_head", "weight"]:
        return "tied_lm_head"
    return "other"


def tensor_groups(
    cc: CheckpointCount, num_hidden_layers: int | None = None, *, tie_word_embeddings: bool = False
) -> dict[str, int]:
    """Stored elements by the groups of :data:`GROUPS` (every key present; the values sum to ``cc.total``).

    These are the usual reasons a checkpoint's count differs from the model's: extra MTP layers, router biases,
    quantization packing, towers the text model does not count, a tied head stored twice. ``num_hidden_layers`` (the
    config's) marks layers past it as MTP; without it only ``.mtp.`` names are.
    """
    out = dict.fromkeys(GROUPS, 0)
    for name, (_dtype, shape) in cc.tensors.items():
        out[_group(name, num_hidden_layers, tie_word_embeddings)] += math.prod(shape)
    return out


@dataclass(frozen=True)
class CheckpointReport:
    """The checkpoint's stored count beside the model's exact count, and why they differ, in words."""

    stored: int  # elements the safetensors files hold
    by_dtype: dict[str, int]
    groups: dict[str, int]  # tensor_groups(): the usual reasons, in stored elements
    files: int
    model_total: int  # the exact count of the model the config builds
    explained: int  # stored less MTP layers, router biases, a tied head's copy (and towers a text count omits)
    lines: tuple[str, ...]  # the explanation, one sentence each

    @property
    def exact(self) -> bool:
        """True when the checkpoint, less what it holds beyond the model, equals the model's count exactly."""
        return self.explained == self.model_total and not self.groups["quantization"]


#: Said when a repo has no safetensors files to read a stored count from.
NO_SAFETENSORS = "the repo has no safetensors files (model.safetensors or its index): no stored count to compare"


def model_checkpoint_report(cc: CheckpointCount, model: Model) -> CheckpointReport:
    """:func:`explain_checkpoint` for ``model``: its exact total, its (text model's) layer count, its tying."""
    config = model.config
    text = config["text_config"] if isinstance(config.get("text_config"), dict) else config
    layers = text.get("num_hidden_layers") if isinstance(text.get("num_hidden_layers"), int) else None
    if model.has_formulas:
        tied = model.spec.tie_word_embeddings
    elif model.meta.formulas:  # a whole model: tied as its class builds it from the file (head/lm counts 0)
        head = model.summary.tree.find("head/lm")
        tied = head is not None and head.count == 0
    else:
        tied = bool(config.get("tie_word_embeddings"))
    return explain_checkpoint(cc, model.summary.total, layers, tie_word_embeddings=tied)


def explain_checkpoint(
    cc: CheckpointCount, model_total: int, num_hidden_layers: int | None, *, tie_word_embeddings: bool = False
) -> CheckpointReport:
    """Compare what the checkpoint stores with ``model_total`` (the exact count from the config) and explain it.

    The parts a checkpoint holds that the model does not build as parameters are taken out one by one (extra
    multi-token-prediction layers, router score-correction biases that are buffers, a tied head's second copy);
    quantized packing makes stored elements differ from parameters, which is said rather than guessed at.
    """
    groups = tensor_groups(cc, num_hidden_layers, tie_word_embeddings=tie_word_embeddings)
    dtypes = ", ".join(f"{n:,} {d}" for d, n in sorted(cc.by_dtype.items(), key=lambda kv: -kv[1]))
    lines = [f"The checkpoint stores {cc.total:,} values in {cc.files:,} safetensors file(s): {dtypes}."]
    why = {
        "mtp": "in multi-token-prediction layers, which transformers does not build (used for speculative decoding)",
        "e_score_correction_bias": "in router score-correction biases: buffers in transformers, not parameters",
        "tied_lm_head": "in lm_head.weight, stored although the class built from config.json ties it to the token "
        "embedding (a parameter counted once); where the stored head differs from the embedding (Mistral Small 3.1), "
        "transformers keeps it apart when loading the checkpoint, and the model it loads holds these too",
    }
    explained = cc.total
    for group, text in why.items():
        if groups[group]:
            lines.append(f"{groups[group]:,} {text}.")
            explained -= groups[group]
    if groups["towers"]:
        counted = explained - model_total != groups["towers"]  # the text-only count leaves the towers out
        lines.append(
            f"{groups['towers']:,} in vision/audio towers and their projector"
            + (": part of the model's count." if counted else ": not part of the text model counted here.")
        )
        explained -= 0 if counted else groups["towers"]
    if groups["quantization"]:
        lines.append(
            f"{groups['quantization']:,} in quantized weights and their scales (MXFP4 blocks, GPTQ/AWQ packed int32, "
            "fp8 scales): packed values are not parameters, so the stored count cannot equal the model's."
        )
    diff = explained - model_total
    if not groups["quantization"]:
        if diff == 0:
            lines.append(f"The rest, {explained:,}, equals the exact count from config.json.")
        else:
            lines.append(
                f"The rest, {explained:,}, differs from the exact count {model_total:,} by {diff:+,}: the checkpoint "
                "holds tensors the config does not describe (or lacks some), e.g. buffers saved with the weights."
            )
    return CheckpointReport(
        stored=cc.total,
        by_dtype=dict(cc.by_dtype),
        groups=groups,
        files=cc.files,
        model_total=model_total,
        explained=explained,
        lines=tuple(lines),
    )
