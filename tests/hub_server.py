"""A Hub-compatible HTTP server on 127.0.0.1 for tests: fixture repos in the Hub's layout, no internet needed.

``huggingface_hub`` pointed at it (:func:`configure_huggingface_hub`) downloads files from
``/{org}/{name}/resolve/{revision}/{file}`` (HEAD, GET, Range), sees the Hub's error answers (``X-Error-Code``:
``RepoNotFound``, ``GatedRepo``, ``RevisionNotFound``, ``EntryNotFound``; HTTP 429) and reads safetensors headers.
Neither paramscope nor ``get_safetensors_metadata`` uses ``/api/models``, so it is not served.

Every request is logged (:attr:`HubServer.requests`), so a test can check which bytes of which file were asked for.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import json
import math
import re
import socket
import struct
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from paramscope.io import presets

#: The token that opens the gated fixture repo.
GRANTED_TOKEN = "hf_fixture_granted_token"
#: How long the slow repo waits before answering (tests pass a shorter timeout).
SLOW_SECONDS = 3.0
#: How long the drip repo waits between the bytes of a body.
DRIP_SECONDS = 0.25
#: Revisions every fixture repo has, besides its commit hash.
REVISIONS = ("main", "v1.0", "refs/pr/1")
DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "U8": 1, "F8_E4M3": 1}

Tensor = tuple[str, str, tuple[int, ...]]  # name, safetensors dtype, shape

#: A tiny DeepSeek-V3-like checkpoint in two shards: num_hidden_layers = 2, layer 2 is an MTP layer, fp8 with scales.
SHARDED_LAYERS = 2
SHARDED: dict[str, list[Tensor]] = {
    "model-00001-of-00002.safetensors": [
        ("model.embed_tokens.weight", "BF16", (32, 8)),
        ("model.layers.0.input_layernorm.weight", "BF16", (8,)),
        ("model.layers.0.self_attn.q_proj.weight", "F8_E4M3", (8, 8)),
        ("model.layers.0.self_attn.q_proj.weight_scale_inv", "F32", (1, 1)),
        ("model.layers.0.mlp.gate.weight", "BF16", (4, 8)),
        ("model.layers.0.mlp.gate.e_score_correction_bias", "F32", (4,)),
    ],
    "model-00002-of-00002.safetensors": [
        ("model.layers.1.input_layernorm.weight", "BF16", (8,)),
        ("model.layers.1.self_attn.q_proj.weight", "BF16", (8, 8)),
        ("model.layers.2.eh_proj.weight", "BF16", (8, 16)),
        ("model.layers.2.enorm.weight", "BF16", (8,)),
        ("model.norm.weight", "BF16", (8,)),
        ("lm_head.weight", "BF16", (32, 8)),
    ],
}
#: One model.safetensors holding a bit of everything tensor_groups sorts out (the head is stored although tied).
SINGLE: list[Tensor] = [
    ("model.embed_tokens.weight", "F32", (16, 4)),
    ("model.layers.0.mlp.down_proj.qweight", "I32", (2, 4)),
    ("model.layers.0.mlp.down_proj.qzeros", "I32", (1, 1)),
    ("model.layers.0.mlp.down_proj.scales", "F16", (1, 4)),
    ("model.layers.0.mlp.down_proj.g_idx", "I32", (8,)),
    ("model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", (2, 4, 1, 16)),
    ("model.layers.0.mlp.experts.gate_up_proj_scales", "U8", (2, 4, 1)),
    ("model.mtp.layers.0.proj.weight", "F16", (4, 4)),
    ("vision_tower.patch_embed.weight", "F16", (4, 3, 2, 2)),
    ("multi_modal_projector.linear.weight", "F16", (4, 4)),
    ("model.norm.weight", "F32", (4,)),
    ("lm_head.weight", "F16", (16, 4)),
    ("scalar", "F64", ()),
]


#: A tiny Llama (tied head), and its checkpoint as LlamaForCausalLM saves it, written from modeling_llama.py: the
#: tied lm_head.weight stored a second time, as some exporters do.
TINY_LLAMA = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "vocab_size": 64,
    "hidden_size": 16,
    "intermediate_size": 40,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "tie_word_embeddings": True,
}
TINY_LLAMA_TENSORS: list[Tensor] = [
    ("model.embed_tokens.weight", "BF16", (64, 16)),
    *[
        (f"model.layers.{i}.{name}", "BF16", shape)
        for i in range(2)
        for name, shape in (
            ("self_attn.q_proj.weight", (16, 16)),
            ("self_attn.k_proj.weight", (8, 16)),
            ("self_attn.v_proj.weight", (8, 16)),
            ("self_attn.o_proj.weight", (16, 16)),
            ("mlp.gate_proj.weight", (40, 16)),
            ("mlp.up_proj.weight", (40, 16)),
            ("mlp.down_proj.weight", (16, 40)),
            ("input_layernorm.weight", (16,)),
            ("post_attention_layernorm.weight", (16,)),
        )
    ],
    ("model.norm.weight", "BF16", (16,)),
    ("lm_head.weight", "BF16", (64, 16)),
]
#: A model type with no family row: counted by transformers itself (the long tail).
TINY_BIOGPT = {
    "model_type": "biogpt",
    "architectures": ["BioGptForCausalLM"],
    "vocab_size": 64,
    "hidden_size": 16,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 32,
    "max_position_embeddings": 32,
}


#: A tiny multimodal Gemma 3 (a language model with a SigLIP vision tower and a projector): no row reads the whole
#: config, gemma3_text's row reads its text_config.
TINY_GEMMA3 = {
    "model_type": "gemma3",
    "architectures": ["Gemma3ForConditionalGeneration"],
    "mm_tokens_per_image": 16,
    "text_config": {
        "model_type": "gemma3_text",
        "vocab_size": 262208,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 32,
    },
    "vision_config": {
        "model_type": "siglip_vision_model",
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": 56,
        "patch_size": 14,
    },
}


def safetensors_file(tensors: Sequence[Tensor]) -> tuple[bytes, int]:
    """A real safetensors file for ``tensors`` (their data all zero bytes) and the length of its header part.

    Layout: 8-byte little-endian header length, the JSON header padded with spaces to a multiple of 8, the data.
    """
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, dtype, shape in tensors:
        size = math.prod(shape) * DTYPE_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + bytes(offset), 8 + len(raw)


def _json(data: object) -> bytes:
    return json.dumps(data, indent=2).encode()


def _header_file(header: dict) -> bytes:
    """A safetensors file whose header is ``header`` as it is (no data): a hostile header, such as an absurd shape."""
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw


@dataclass
class FixtureRepo:
    """The files of one repo and how the server answers for it."""

    files: dict[str, bytes]
    # "", "gated", "slow", "rate_limited", "unsized" (HEAD without Content-Length); hostile: "lying" (HEAD announces
    # 500 bytes, GET sends the whole body), "gzip" (the body gzip-compressed though identity was asked for), "drip"
    # (a byte every DRIP_SECONDS), "bad_etag" (an ETag that is a path out of the cache)
    behaviour: str = ""
    commit: str = ""

    def revisions(self) -> set[str]:
        return {*REVISIONS, self.commit}


def build_repos() -> dict[str, FixtureRepo]:
    """The fixture repos, by id."""
    gpt2 = _json(presets.get("gpt2").config)
    llama = _json(presets.get("llama-3.2-1b").config)
    sharded_config = {
        "model_type": "deepseek_v3",
        "num_hidden_layers": SHARDED_LAYERS,
        "num_nextn_predict_layers": 1,
        "hidden_size": 8,
        "vocab_size": 32,
        "tie_word_embeddings": False,
    }
    shards = {name: safetensors_file(tensors)[0] for name, tensors in SHARDED.items()}
    first = min(shards)
    index = {
        "metadata": {"total_size": sum(len(f) for f in shards.values())},
        "weight_map": {name: shard for shard, tensors in SHARDED.items() for name, _, _ in tensors},
    }
    big = b'{"model_type": "gpt2", "pad": "' + b"x" * 1_100_000 + b'"}'
    repos = {
        "fixture/gpt2": FixtureRepo({"config.json": gpt2, "README.md": b"# gpt2\n"}),
        "fixture/tiny-llama": FixtureRepo(
            {"config.json": _json(TINY_LLAMA), "model.safetensors": safetensors_file(TINY_LLAMA_TENSORS)[0]}
        ),
        "fixture/tiny-biogpt": FixtureRepo({"config.json": _json(TINY_BIOGPT)}),
        "fixture/tiny-gemma3": FixtureRepo({"config.json": _json(TINY_GEMMA3)}),
        "fixture/llama": FixtureRepo({"config.json": llama}),
        "fixture/sharded": FixtureRepo(
            {"config.json": _json(sharded_config), "model.safetensors.index.json": _json(index), **shards}
        ),
        "fixture/single": FixtureRepo(
            {"config.json": gpt2, "model.safetensors": safetensors_file(SINGLE)[0]},
        ),
        "fixture/gated": FixtureRepo(
            {"config.json": llama, "model.safetensors": safetensors_file(SINGLE)[0]}, behaviour="gated"
        ),
        "fixture/no-config": FixtureRepo({"README.md": b"# nothing here\n"}),
        "fixture/no-weights": FixtureRepo({"config.json": gpt2, "pytorch_model.bin": b"\0" * 64}),
        "fixture/slow": FixtureRepo({"config.json": gpt2}, behaviour="slow"),
        "fixture/rate-limited": FixtureRepo({"config.json": gpt2}, behaviour="rate_limited"),
        "fixture/malformed": FixtureRepo({"config.json": b'{"model_type": "gpt2", "n_layer": 12,,}'}),
        "fixture/nan": FixtureRepo({"config.json": b'{"model_type": "gpt2", "n_embd": NaN}'}),
        "fixture/not-object": FixtureRepo({"config.json": b"[1, 2, 3]"}),
        "fixture/not-utf8": FixtureRepo({"config.json": b'{"model_type": "gpt2\xff"}'}),
        "fixture/too-large": FixtureRepo({"config.json": big}),
        "fixture/too-large-unsized": FixtureRepo({"config.json": big}, behaviour="unsized"),
        "fixture/lying": FixtureRepo(
            {"config.json": b'{"model_type": "gpt2", "pad": "' + b"x" * 5_000_000 + b'"}'}, behaviour="lying"
        ),
        "fixture/gzip-bomb": FixtureRepo({"config.json": b" " * 20_000_000 + gpt2}, behaviour="gzip"),
        "fixture/drip": FixtureRepo({"config.json": gpt2}, behaviour="drip"),
        "fixture/bad-etag": FixtureRepo({"config.json": gpt2}, behaviour="bad_etag"),
        "fixture/huge-headers": FixtureRepo(  # 40 shards, each announcing a 20 MB header (800 MB in all)
            {
                "model.safetensors.index.json": _json(
                    {"weight_map": {f"t{i}": f"s{i}.safetensors" for i in range(40)}}
                ),
                **{f"s{i}.safetensors": struct.pack("<Q", 20_000_000) + b"{}" for i in range(40)},
            }
        ),
        "fixture/huge-shape": FixtureRepo(
            {"model.safetensors": _header_file({"w": {"dtype": "BF16", "shape": [2**47] * 16, "data_offsets": [0, 0]}})}
        ),
        "fixture/bad-index": FixtureRepo(
            {"model.safetensors.index.json": _json({"weight_map": {"a": "../../etc/passwd.safetensors"}})}
        ),
        "fixture/bad-header": FixtureRepo({"model.safetensors": struct.pack("<Q", 10**12) + b"{}"}),
        "fixture/missing-shard": FixtureRepo(  # the index lists a second shard the repo does not have
            {"model.safetensors.index.json": _json(index), "model-00001-of-00002.safetensors": shards[first]}
        ),
    }
    for repo_id, repo in repos.items():
        repo.commit = hashlib.sha1(repo_id.encode()).hexdigest()
    return repos


@dataclass(frozen=True)
class Request:
    """One request the server answered."""

    method: str
    repo_id: str
    revision: str
    filename: str
    range: str | None  # the Range header, as sent
    status: int
    sent: int  # body bytes in the answer (0 for HEAD)


_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    generation = 0

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        """Quiet: the server's log is :attr:`HubServer.requests`."""

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self._answer(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        self.generation = self.server.hub.generation  # a request still running after a reset is not logged
        parts = urlsplit(self.path).path.split("/")
        if len(parts) < 6 or parts[0] or parts[3] != "resolve":
            self._send(head, 404, b"Not Found", {}, ("", "", ""))
            return
        repo_id, revision, filename = f"{parts[1]}/{parts[2]}", unquote(parts[4]), unquote("/".join(parts[5:]))
        where = (repo_id, revision, filename)
        repo = self.server.hub.repos.get(repo_id)
        if repo is None:
            self._error(head, 404, "RepoNotFound", "Repository not found", where)
            return
        if repo.behaviour == "slow":
            time.sleep(SLOW_SECONDS)
        if repo.behaviour == "gated" and self.headers.get("Authorization") != f"Bearer {GRANTED_TOKEN}":
            message = (
                f"Access to model {repo_id} is restricted. You must have access to it and be authenticated to "
                "access it. Please log in."
            )
            self._error(head, 401, "GatedRepo", message, where)
            return
        if repo.behaviour == "rate_limited":
            extra = {"RateLimit": '"resolvers";r=0;t=42', "RateLimit-Policy": '"fixed window";"resolvers";q=3000;w=300'}
            self._send(head, 429, b"Too Many Requests", extra, where)
            return
        if revision not in repo.revisions():
            self._error(head, 404, "RevisionNotFound", f"Invalid rev id: {revision}", where)
            return
        commit = {"X-Repo-Commit": repo.commit}
        if filename not in repo.files:
            self._error(head, 404, "EntryNotFound", "Entry not found", where, commit)
            return
        body = repo.files[filename]
        headers = {
            **commit,
            "ETag": f'"{hashlib.sha256(body).hexdigest()}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/json" if filename.endswith(".json") else "application/octet-stream",
        }
        match = _RANGE.fullmatch(self.headers.get("Range", "")) if not head else None
        if match:
            start, end = int(match[1]), int(match[2]) if match[2] else len(body) - 1
            end = min(end, len(body) - 1)
            if start > end:
                self._send(head, 416, b"", {**headers, "Content-Range": f"bytes */{len(body)}"}, where)
                return
            headers["Content-Range"] = f"bytes {start}-{end}/{len(body)}"
            self._send(head, 206, body[start : end + 1], headers, where)
            return
        if repo.behaviour == "bad_etag":
            headers["ETag"] = '"../../../../../../../tmp/paramscope-pwned"'
        if repo.behaviour == "lying" and head:
            self._send(head, 200, body[:500], headers, where)
            return
        if repo.behaviour == "gzip":
            self._send(head, 200, gzip.compress(body, 9), {**headers, "Content-Encoding": "gzip"}, where)
            return
        if repo.behaviour == "drip" and not head:
            self._drip(body, headers, where)
            return
        self._send(head, 200, body, headers, where, content_length=repo.behaviour != "unsized")

    def _drip(self, body: bytes, headers: dict[str, str], where: tuple[str, str, str]) -> None:
        """The whole body, one byte every DRIP_SECONDS (a server that keeps a reader waiting)."""
        self.server.hub.log(Request(self.command, *where, None, 200, len(body)), self.generation)
        try:
            self.send_response(200)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(DRIP_SECONDS)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _error(
        self, head: bool, status: int, code: str, message: str, where: tuple[str, str, str], extra: dict | None = None
    ) -> None:
        headers = {
            "X-Error-Code": code,
            "X-Error-Message": message,
            "Content-Type": "application/json",
            **(extra or {}),
        }
        self._send(head, status, json.dumps({"error": message}).encode(), headers, where)

    def _send(
        self,
        head: bool,
        status: int,
        body: bytes,
        headers: dict[str, str],
        where: tuple[str, str, str],
        content_length: bool = True,
    ) -> None:
        # logged before answering, so the log is complete by the time the client has its answer
        sent = 0 if head else len(body)
        self.server.hub.log(Request(self.command, *where, self.headers.get("Range"), status, sent), self.generation)
        try:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if content_length or not head:  # only a HEAD answer may leave the length out (the connection stays open)
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    hub: HubServer


@dataclass
class HubServer:
    """The fixture Hub on 127.0.0.1 (a free port), in a background thread; use as a context manager."""

    repos: dict[str, FixtureRepo] = field(default_factory=build_repos)
    requests: list[Request] = field(default_factory=list)
    generation: int = 0  # bumped by reset()

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.hub = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="fixture-hub", daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def log(self, request: Request, generation: int) -> None:
        """Log a request answered, unless the log was reset since it arrived (a slow answer outliving its test)."""
        with self._lock:
            if generation == self.generation:
                self.requests.append(request)

    def reset(self) -> None:
        """Forget the requests logged so far, and those still being answered."""
        with self._lock:
            self.requests.clear()
            self.generation += 1

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def configure_huggingface_hub(monkeypatch: pytest.MonkeyPatch, endpoint: str, home: Path) -> None:
    """Point huggingface_hub at ``endpoint`` with an empty ``home`` (cache, token) and no token, telemetry or retries.

    huggingface_hub reads HF_ENDPOINT, HF_HOME, HF_HUB_OFFLINE, ... once, at import, into ``huggingface_hub.constants``
    (read again at each call), so the environment is set for subprocesses and the constants for this process;
    ``huggingface_hub.hf_api.api`` (behind the top-level helpers such as ``get_safetensors_metadata``) keeps a copy of
    the endpoint of its own.
    """
    from huggingface_hub import constants, hf_api
    from huggingface_hub.utils import close_session

    home.mkdir(parents=True, exist_ok=True)
    cache = home / "hub"
    for name in (
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "HF_HUB_OFFLINE",
        "TRANSFORMERS_OFFLINE",
        "HF_OIDC_RESOURCE",
        "HF_HUB_ETAG_TIMEOUT",
        "HF_HUB_DOWNLOAD_TIMEOUT",
        "HF_HUB_CACHE",
        "HF_TOKEN_PATH",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", endpoint + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(constants, "HF_HOME", str(home))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(home / "token"))
    monkeypatch.setattr(constants, "HF_STORED_TOKENS_PATH", str(home / "stored_tokens"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_IMPLICIT_TOKEN", False)
    monkeypatch.setattr(constants, "HF_HUB_ETAG_TIMEOUT", constants.DEFAULT_ETAG_TIMEOUT)
    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", constants.DEFAULT_DOWNLOAD_TIMEOUT)
    # a module-level copy; `huggingface_hub.utils.tqdm` as an attribute is the class, hence import_module
    monkeypatch.setattr(importlib.import_module("huggingface_hub.utils.tqdm"), "HF_HUB_DISABLE_PROGRESS_BARS", True)
    monkeypatch.setattr(hf_api.api, "endpoint", endpoint)
    close_session()  # the shared httpx2 client read the proxy settings when it was made: make a fresh one


def closed_port_endpoint() -> str:
    """An endpoint on 127.0.0.1 where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
