"""The Hugging Face Hub input: strict ids, config.json by id, safetensors headers, one-line errors, all on 127.0.0.1."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import safetensors
from hub_server import (
    GRANTED_TOKEN,
    SHARDED,
    SHARDED_LAYERS,
    SINGLE,
    SLOW_SECONDS,
    HubServer,
    Tensor,
    closed_port_endpoint,
    safetensors_file,
)
from huggingface_hub import HfApi, constants
from hypothesis import given, settings
from hypothesis import strategies as st

from paramscope.io import presets
from paramscope.io.hub import (
    GROUPS,
    CheckpointCount,
    HubError,
    checkpoint_tensors,
    fetch_config,
    looks_like_repo_id,
    tensor_groups,
    validate_repo_id,
    validate_revision,
)


def _point_at(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", endpoint + "/{repo_id}/resolve/{revision}/{filename}")


def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def _error(call: Callable[..., object], *args: object, **kwargs: object) -> tuple[str, str]:
    """(kind, message) of the HubError the call raises."""
    with pytest.raises(HubError) as info:
        call(*args, **kwargs)
    return info.value.kind, str(info.value)


# ------------------------------------------------------------------------------------------------ ids
GOOD_IDS = [
    "openai-community/gpt2",
    "meta-llama/Llama-3.2-1B",
    "Qwen/Qwen2.5-0.5B-Instruct",
    "deepseek-ai/DeepSeek-V3",
    "a/b",
    "user_1/model.v2_final",
    "o" * 47 + "/" + "n" * 48,  # 96 characters
]

HOSTILE_IDS = {
    "empty": ("", "hub id: empty; type ORG/NAME, e.g. openai-community/gpt2"),
    "https link": (
        "https://huggingface.co/openai-community/gpt2",
        "hub id: 'https://huggingface.co/openai-community/gpt2' is a link; type only ORG/NAME, e.g. "
        "openai-community/gpt2",
    ),
    "bare host link": (
        "huggingface.co/gpt2",
        "hub id: 'huggingface.co/gpt2' is a link; type only ORG/NAME, e.g. openai-community/gpt2",
    ),
    "javascript": (
        "javascript://x/y",
        "hub id: 'javascript://x/y' is a link; type only ORG/NAME, e.g. openai-community/gpt2",
    ),
    "three parts": ("a/b/c", "hub id: 'a/b/c' must be ORG/NAME with exactly one '/'"),
    "preset name": ("gpt2", "hub id: 'gpt2' must be ORG/NAME with exactly one '/'"),
    "dot dot": ("org/na..me", "hub id: 'org/na..me' contains '..' or '--'"),
    "dash dash": ("org/na--me", "hub id: 'org/na--me' contains '..' or '--'"),
    "traversal": ("../etc/passwd", "hub id: '../etc/passwd' must be ORG/NAME with exactly one '/'"),
    "dot part": ("../passwd", "hub id: the organisation '..' starts or ends with '.' or '-'"),
    "97 characters": ("o" * 48 + "/" + "n" * 48, "hub id: 97 characters; the limit is 96"),
    "100 kB": ("x" * 100_000, "hub id: 100,000 characters; the limit is 96"),
    "space": ("org/my model", "hub id: 'org/my model' has characters not allowed (' '); use letters, digits, - _ ."),
    "leading space": (
        " org/model",
        "hub id: ' org/model' has characters not allowed (' '); use letters, digits, - _ .",
    ),
    "unicode letter": (
        "org/modèle",
        "hub id: 'org/modèle' has characters not allowed ('è'); use letters, digits, - _ .",
    ),
    "cyrillic o": ("оrg/model", "hub id: 'оrg/model' has characters not allowed ('о'); use letters, digits, - _ ."),
    "unicode digit": ("org/m١", "hub id: 'org/m١' has characters not allowed ('١'); use letters, digits, - _ ."),
    "newline": ("org/model\n", "hub id: 'org/model\\n' has characters not allowed ('\\n'); use letters, digits, - _ ."),
    "query": (
        "org/model?x=1",
        "hub id: 'org/model?x=1' has characters not allowed ('=', '?'); use letters, digits, - _ .",
    ),
    "markup": ("<b>/x", "hub id: '<b>/x' has characters not allowed ('<', '>'); use letters, digits, - _ ."),
    "backslash": (
        "org\\model",
        "hub id: 'org\\\\model' has characters not allowed ('\\\\'); use letters, digits, - _ .",
    ),
    "no org": ("/gpt2", "hub id: the organisation in '/gpt2' is empty"),
    "no name": ("org/", "hub id: the name in 'org/' is empty"),
    "leading dash": ("-org/name", "hub id: the organisation '-org' starts or ends with '.' or '-'"),
    "trailing dot": ("org/name.", "hub id: the name 'name.' starts or ends with '.' or '-'"),
    "git suffix": ("org/name.git", "hub id: 'org/name.git' ends with '.git'; type ORG/NAME"),
    "not text": (None, "hub id: expected text, got NoneType"),
}


@pytest.mark.parametrize("repo_id", GOOD_IDS)
def test_good_ids_pass(repo_id: str) -> None:
    """Real-shaped ids come back unchanged and look like ids."""
    assert (repo_id, True) == (validate_repo_id(repo_id), looks_like_repo_id(repo_id))


@pytest.mark.parametrize("case", sorted(HOSTILE_IDS))
def test_hostile_ids_name_what_is_wrong(case: str) -> None:
    """Each hostile id is refused before any request, with one line naming what is wrong."""
    text, message = HOSTILE_IDS[case]
    assert ("invalid", message) == _error(validate_repo_id, text)
    assert not looks_like_repo_id(text)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_any_text_is_an_id_or_one_line_error(text: str) -> None:
    """Any text is either a plain ASCII ORG/NAME of at most 96 characters or refused in one short line."""
    try:
        ok = validate_repo_id(text)
    except HubError as exc:
        message = str(exc)
        assert (True, True, True) == (message.startswith("hub id: "), "\n" not in message, len(message) < 300)
    else:
        org, name = ok.split("/")
        assert (ok, True) == (text, len(ok) <= 96 and (org + name).isascii() and ".." not in ok)


GOOD_REVISIONS = ["main", "v1.0", "refs/pr/1", "release_2024-01", "0123456789abcdef0123456789abcdef01234567"]
BAD_REVISIONS = {
    "": "revision: empty; use a branch, tag or commit, e.g. main",
    "../main": "revision: '../main' contains '..', '//' or ends with '/'",
    "/main": "revision: '/main' starts with '/'",
    "-main": "revision: '-main' starts with '-'",
    "a//b": "revision: 'a//b' contains '..', '//' or ends with '/'",
    "main/": "revision: 'main/' contains '..', '//' or ends with '/'",
    "ma in": "revision: 'ma in' has characters not allowed; use letters, digits, - _ . /",
    "main;rm": "revision: 'main;rm' has characters not allowed; use letters, digits, - _ . /",
    "r" * 101: "revision: 101 characters; the limit is 100",
}


@pytest.mark.parametrize("revision", GOOD_REVISIONS)
def test_good_revisions_pass(revision: str) -> None:
    """Branches, tags, PR refs and commit hashes come back unchanged."""
    assert revision == validate_revision(revision)


@pytest.mark.parametrize("revision", sorted(BAD_REVISIONS))
def test_bad_revisions_name_what_is_wrong(revision: str) -> None:
    """A revision with a path trick, a bad character or too many characters is refused in one line."""
    assert ("invalid", BAD_REVISIONS[revision]) == _error(validate_revision, revision)


# ------------------------------------------------------------------------------------------------ config.json
@pytest.mark.parametrize(
    ("repo_id", "revision", "preset"),
    [
        ("fixture/gpt2", "main", "gpt2"),
        ("fixture/llama", "main", "llama-3.2-1b"),
        ("fixture/gpt2", "v1.0", "gpt2"),
        ("fixture/gpt2", "refs/pr/1", "gpt2"),
    ],
)
def test_fetch_config_returns_the_served_config(hub: HubServer, repo_id: str, revision: str, preset: str) -> None:
    """The config served is the config returned, for a branch, a tag and a PR ref."""
    assert presets.get(preset).config == fetch_config(repo_id, revision)


def test_fetch_config_by_commit_hash(hub: HubServer) -> None:
    """A commit hash is a revision like any other."""
    commit = hub.repos["fixture/llama"].commit
    assert presets.get("llama-3.2-1b").config == fetch_config("fixture/llama", commit)


def test_fetch_config_downloads_only_config_json(hub: HubServer) -> None:
    """Fetching a config asks for config.json (a HEAD for its size, then the file) and nothing else."""
    fetch_config("fixture/gpt2")
    assert [("HEAD", "config.json"), ("GET", "config.json")] == [(r.method, r.filename) for r in hub.requests]


GATED = (
    "hub id: 'fixture/gated' is gated: accept its terms on the Hub, then set HF_TOKEN to a token with access "
    "(this page cannot take a token: paste the config.json instead)"
)
CONFIG_ERRORS = {
    "missing repo": (
        "fixture/missing",
        "main",
        "not_found",
        "hub id: no model 'fixture/missing' on the Hub (or it is private)",
    ),
    "gated": ("fixture/gated", "main", "gated", GATED),
    "no config.json": (
        "fixture/no-config",
        "main",
        "no_file",
        "hub id: 'fixture/no-config' has no config.json (revision 'main')",
    ),
    "no such revision": (
        "fixture/gpt2",
        "nope",
        "revision",
        "revision: 'fixture/gpt2' has no branch, tag or commit 'nope'",
    ),
    "rate limited": (
        "fixture/rate-limited",
        "main",
        "rate_limited",
        "hub id: the Hub is rate limiting requests (HTTP 429); try again in 42 s",
    ),
    "too large": (
        "fixture/too-large",
        "main",
        "too_large",
        "hub id: config.json of 'fixture/too-large' is 1,100,033 bytes; the limit is 1,000,000",
    ),
    "too large, size unknown": (
        "fixture/too-large-unsized",
        "main",
        "too_large",
        "hub id: config.json of 'fixture/too-large-unsized' is over 1,000,000 bytes (the limit); refused as it arrived",
    ),
    "malformed": (
        "fixture/malformed",
        "main",
        "malformed",
        "hub id: config.json of 'fixture/malformed' is not valid JSON (line 1, column 38: "
        "Expecting property name enclosed in double quotes)",
    ),
    "NaN": (
        "fixture/nan",
        "main",
        "malformed",
        "hub id: config.json of 'fixture/nan' is not plain JSON (config: NaN is not a number a config can hold)",
    ),
    "not an object": (
        "fixture/not-object",
        "main",
        "malformed",
        "hub id: config.json of 'fixture/not-object' is not a JSON object ({...})",
    ),
    "not UTF-8": (
        "fixture/not-utf8",
        "main",
        "malformed",
        "hub id: config.json of 'fixture/not-utf8' is not UTF-8 text (byte 20)",
    ),
}


@pytest.mark.parametrize("case", sorted(CONFIG_ERRORS))
def test_fetch_config_errors_are_one_line(hub: HubServer, case: str) -> None:
    """Each failure of the Hub or of the file becomes its own one-line HubError."""
    repo_id, revision, kind, message = CONFIG_ERRORS[case]
    assert (kind, message) == _error(fetch_config, repo_id, revision)


def test_too_large_config_is_refused_before_download(hub: HubServer) -> None:
    """The Hub's announced size refuses a config over 1 MB: no GET is sent for it."""
    _error(fetch_config, "fixture/too-large")
    assert ["HEAD"] == [r.method for r in hub.requests]


def test_timeout_names_the_seconds(hub: HubServer) -> None:
    """A Hub slower than the timeout gives up after the timeout (not the server's delay) and says so."""
    start = time.monotonic()
    kind_message = _error(fetch_config, "fixture/slow", timeout=1)
    elapsed = time.monotonic() - start
    expected = (
        "timeout",
        f"hub id: the Hub at {hub.endpoint} timed out after 1 s and config.json of 'fixture/slow' "
        "is not in the local cache",
    )
    assert (expected, True) == (kind_message, elapsed < SLOW_SECONDS - 0.5)


@pytest.mark.parametrize("how", ["token argument", "HF_TOKEN"])
def test_gated_repo_opens_with_a_token(hub: HubServer, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """A granted token, passed in or read by huggingface_hub from HF_TOKEN, opens the gated repo."""
    if how == "HF_TOKEN":
        monkeypatch.setenv("HF_TOKEN", GRANTED_TOKEN)
        config = fetch_config("fixture/gated")
    else:
        config = fetch_config("fixture/gated", token=GRANTED_TOKEN)
    assert presets.get("llama-3.2-1b").config == config


def test_offline_uses_the_cache(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """With HF_HUB_OFFLINE=1, a config fetched before comes from the HF cache, without a request."""
    first = fetch_config("fixture/gpt2")
    _offline(monkeypatch)
    hub.reset()
    assert (first, []) == (fetch_config("fixture/gpt2"), hub.requests)


def test_offline_with_an_empty_cache_cannot_reach(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline with nothing cached: the message says the Hub cannot be reached, names it, and says why."""
    _offline(monkeypatch)
    expected = (
        "offline",
        f"hub id: cannot reach the Hub at {hub.endpoint}: offline mode (HF_HUB_OFFLINE) and config.json of "
        "'fixture/gpt2' is not in the local cache",
    )
    assert (expected, []) == (_error(fetch_config, "fixture/gpt2"), hub.requests)


def test_unreachable_endpoint(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint where nothing listens: 'cannot reach', naming the endpoint; a cached config still answers."""
    cached = fetch_config("fixture/gpt2")
    dead = closed_port_endpoint()
    _point_at(monkeypatch, dead)
    expected = (
        "unreachable",
        f"hub id: cannot reach the Hub at {dead} (ConnectError) and config.json of 'fixture/llama' "
        "is not in the local cache",
    )
    assert (expected, cached) == (_error(fetch_config, "fixture/llama"), fetch_config("fixture/gpt2"))


def test_invalid_id_sends_no_request(hub: HubServer) -> None:
    """A hostile id is refused before huggingface_hub is called."""
    assert ("invalid", []) == (_error(fetch_config, "a/b/../c")[0], hub.requests)


# ------------------------------------------------------------------------------------------------ safetensors
def _expected(files: dict[str, list[Tensor]]) -> CheckpointCount:
    """The count the fixture definitions imply, computed here from the definitions alone."""
    tensors = {name: (dtype, shape) for tensors in files.values() for name, dtype, shape in tensors}
    by_dtype: dict[str, int] = {}
    for dtype, shape in tensors.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + math.prod(shape)
    return CheckpointCount(sum(math.prod(s) for _, s in tensors.values()), by_dtype, tensors, len(files))


CHECKPOINTS = {
    "fixture/sharded": SHARDED,
    "fixture/single": {"model.safetensors": SINGLE},
}


@pytest.mark.parametrize("repo_id", sorted(CHECKPOINTS))
def test_checkpoint_totals_equal_the_fixture_shapes(hub: HubServer, repo_id: str) -> None:
    """Total, by-dtype split, tensors and file count equal what the fixture's shapes add up to."""
    assert _expected(CHECKPOINTS[repo_id]) == checkpoint_tensors(repo_id)


def test_by_dtype_split_of_the_sharded_checkpoint(hub: HubServer) -> None:
    """The sharded fixture stores 768 BF16, 64 fp8 and 5 F32 elements (counted by hand)."""
    cc = checkpoint_tensors("fixture/sharded")
    assert ({"BF16": 768, "F8_E4M3": 64, "F32": 5}, 837) == (cc.by_dtype, cc.total)  # type: ignore[union-attr]


@pytest.mark.parametrize("repo_id", sorted(CHECKPOINTS))
def test_only_header_bytes_are_requested(hub: HubServer, repo_id: str) -> None:
    """Each safetensors file is read by two Range requests, its 8-byte length then its JSON header: no data bytes."""
    checkpoint_tensors(repo_id)
    reads: dict[str, list[tuple[str, str | None, int]]] = {}
    for r in hub.requests:
        if r.filename.endswith(".safetensors") and r.status != 404:
            reads.setdefault(r.filename, []).append((r.method, r.range, r.sent))
    head = [("HEAD", None, 0)] if repo_id == "fixture/single" else []  # the HEAD that finds model.safetensors
    expected = {
        name: [*head, ("GET", "bytes=0-7", 8), ("GET", f"bytes=8-{size - 1}", size - 8)]
        for name, size in ((name, safetensors_file(tensors)[1]) for name, tensors in CHECKPOINTS[repo_id].items())
    }
    assert expected == reads


def test_agrees_with_huggingface_hub_get_safetensors_metadata(hub: HubServer) -> None:
    """huggingface_hub's own reader (which fetches the first 100 kB of each file) finds the same counts."""
    for repo_id in CHECKPOINTS:
        theirs = HfApi().get_safetensors_metadata(repo_id).parameter_count
        assert theirs == checkpoint_tensors(repo_id).by_dtype  # type: ignore[union-attr]


@pytest.mark.parametrize("repo_id", ["fixture/no-weights", "fixture/gpt2"])
def test_no_safetensors_is_none(hub: HubServer, repo_id: str) -> None:
    """A repo without model.safetensors or an index gives None, after two HEAD requests and no download."""
    assert (None, ["HEAD", "HEAD"]) == (checkpoint_tensors(repo_id), [r.method for r in hub.requests])


def test_gated_checkpoint_with_a_token(hub: HubServer) -> None:
    """The token reaches the Range requests too."""
    assert _expected({"model.safetensors": SINGLE}) == checkpoint_tensors("fixture/gated", token=GRANTED_TOKEN)


CHECKPOINT_ERRORS = {
    "fixture/missing": ("not_found", "hub id: no model 'fixture/missing' on the Hub (or it is private)"),
    "fixture/gated": ("gated", GATED),
    "fixture/rate-limited": ("rate_limited", "hub id: the Hub is rate limiting requests (HTTP 429); try again in 42 s"),
    "fixture/bad-index": (
        "malformed",
        "hub id: model.safetensors.index.json of 'fixture/bad-index' names a file not allowed: "
        "'../../etc/passwd.safetensors'",
    ),
    "fixture/missing-shard": (
        "no_file",
        "hub id: 'fixture/missing-shard' has no model-00002-of-00002.safetensors (revision 'main')",
    ),
    "fixture/bad-header": (
        "malformed",
        "hub id: model.safetensors of 'fixture/bad-header' announces a 1,000,000,000,000-byte header; "
        "the limit is 25,000,000",
    ),
}


@pytest.mark.parametrize("repo_id", sorted(CHECKPOINT_ERRORS))
def test_checkpoint_errors_are_one_line(hub: HubServer, repo_id: str) -> None:
    """A missing, gated or rate-limited repo, a hostile index or header: one line each, nothing downloaded."""
    assert CHECKPOINT_ERRORS[repo_id] == _error(checkpoint_tensors, repo_id)


def test_checkpoint_offline(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers are never cached: offline, the checkpoint count says the Hub cannot be reached."""
    _offline(monkeypatch)
    expected = ("offline", f"hub id: cannot reach the Hub at {hub.endpoint}: offline mode (HF_HUB_OFFLINE)")
    assert expected == _error(checkpoint_tensors, "fixture/single")


# ------------------------------------------------------------------------------------------------ groups
SHARDED_GROUPS = {  # by hand, from the names in hub_server.SHARDED
    "model.layers.2.eh_proj.weight": "mtp",
    "model.layers.2.enorm.weight": "mtp",
    "model.layers.0.mlp.gate.e_score_correction_bias": "e_score_correction_bias",
    "model.layers.0.self_attn.q_proj.weight_scale_inv": "quantization",
}
SINGLE_GROUPS = {  # by hand, from the names in hub_server.SINGLE, with a tied head and one text layer
    "vision_tower.patch_embed.weight": "towers",
    "multi_modal_projector.linear.weight": "towers",
    "model.mtp.layers.0.proj.weight": "mtp",
    "model.layers.0.mlp.down_proj.qweight": "quantization",
    "model.layers.0.mlp.down_proj.qzeros": "quantization",
    "model.layers.0.mlp.down_proj.scales": "quantization",
    "model.layers.0.mlp.down_proj.g_idx": "quantization",
    "model.layers.0.mlp.experts.gate_up_proj_blocks": "quantization",
    "model.layers.0.mlp.experts.gate_up_proj_scales": "quantization",
    "lm_head.weight": "tied_lm_head",
}


def _sums(tensors: list[Tensor], groups: dict[str, str]) -> dict[str, int]:
    out = dict.fromkeys(GROUPS, 0)
    for name, _, shape in tensors:
        out[groups.get(name, "other")] += math.prod(shape)
    return out


@pytest.mark.parametrize(
    ("tensors", "groups", "layers", "tied"),
    [
        ([t for ts in SHARDED.values() for t in ts], SHARDED_GROUPS, SHARDED_LAYERS, False),
        (SINGLE, SINGLE_GROUPS, 1, True),
        (SINGLE, {**SINGLE_GROUPS, "lm_head.weight": "other"}, None, False),
    ],
    ids=["sharded", "single tied", "single untied"],
)
def test_tensor_groups(tensors: list[Tensor], groups: dict[str, str], layers: int | None, tied: bool) -> None:
    """MTP layers, router biases, quantization, towers and a tied head are summed apart; the groups add to the total."""
    cc = _expected({"f.safetensors": tensors})
    got = tensor_groups(cc, layers, tie_word_embeddings=tied)
    assert (_sums(tensors, groups), cc.total) == (got, sum(got.values()))


#: BLIP-2's checkpoint names (Salesforce/blip2-opt-2.7b's layout), by hand: the Q-Former, the query tokens and the
#: projection are towers beside the vision model; the tied OPT head stored under language_model.
BLIP_2_GROUPS = {
    "vision_model.encoder.layers.38.self_attn.qkv.weight": "towers",
    "qformer.encoder.layer.11.output_query.dense.weight": "towers",
    "query_tokens": "towers",
    "language_projection.weight": "towers",
    "language_model.model.decoder.layers.31.fc1.weight": "other",
    "language_model.lm_head.weight": "tied_lm_head",
}


def test_blip_2_tensor_groups() -> None:
    """BLIP-2's Q-Former, query tokens and language projection are summed with the towers, not with the language
    model's layers; its stored tied head apart."""
    tensors = [(name, "F32", (2, 3)) for name in BLIP_2_GROUPS]
    cc = _expected({"f.safetensors": tensors})
    assert _sums(tensors, BLIP_2_GROUPS) == tensor_groups(cc, 32, tie_word_embeddings=True)


def test_fixture_files_are_real_safetensors() -> None:
    """The safetensors library reads the fixture files back to the defined names, dtypes and shapes."""
    for tensors in [SINGLE, *SHARDED.values()]:
        read = {
            name: (info["dtype"], tuple(info["shape"]))
            for name, info in safetensors.deserialize(safetensors_file(tensors)[0])
        }
        assert {name: (dtype, shape) for name, dtype, shape in tensors} == read


# ------------------------------------------------------------------------------------------ a hostile Hub
def test_a_lying_size_is_refused_as_the_bytes_arrive(hub: HubServer) -> None:
    """A HEAD announcing 500 bytes, then a 5 MB body: refused once the limit is passed, nothing written to the HF
    cache (the client once wrote the whole body to disk before refusing)."""
    from huggingface_hub import constants

    with pytest.raises(HubError, match="over 1,000,000 bytes .* refused as it arrived"):
        fetch_config("fixture/lying")
    written = [p.stat().st_size for p in Path(constants.HF_HUB_CACHE).rglob("*") if p.is_file()]
    assert [] == [n for n in written if n > 1_000_000]


def test_a_compressed_body_is_refused(hub: HubServer) -> None:
    """A gzip body (20 MB in 20 kB) sent though plain bytes were asked for: refused unread, never expanded."""
    with pytest.raises(HubError, match="came compressed"):
        fetch_config("fixture/gzip-bomb")


def test_a_dripping_body_is_cut_off(hub: HubServer) -> None:
    """A server sending a byte every quarter second: the download stops at twice the timeout (1 s here), not when the
    body ends (some 80 s later)."""
    import time

    start = time.monotonic()
    with pytest.raises(HubError, match="took over 2 s"):
        fetch_config("fixture/drip", timeout=1.0)
    assert time.monotonic() - start < 4


def test_an_etag_that_is_a_path_places_no_file(hub: HubServer) -> None:
    """An ETag of '"../../../../tmp/..."' (which huggingface_hub would make a cache path of): the config still reads,
    and no file appears outside the HF cache's repo folder."""
    target = Path("/tmp/paramscope-pwned")
    target.unlink(missing_ok=True)
    assert "gpt2" == fetch_config("fixture/bad-etag")["model_type"]
    assert not target.exists()


def test_checkpoint_headers_are_bounded_in_total(hub: HubServer) -> None:
    """40 shards announcing 20 MB of header each (800 MB): refused from the announced lengths, only their 8-byte
    prefixes read."""
    with pytest.raises(HubError, match="announce 800,000,000 bytes of headers; the limit is 64,000,000"):
        checkpoint_tensors("fixture/huge-headers")
    shards = [r for r in hub.requests if r.method == "GET" and r.filename.endswith(".safetensors")]
    assert (40, {"bytes=0-7"}) == (len(shards), {r.range for r in shards})


def test_an_absurd_shape_is_refused(hub: HubServer) -> None:
    """A tensor of shape [2^47] * 16 (once accepted as 1.55e231 stored parameters) is a malformed entry."""
    with pytest.raises(HubError, match="malformed entry"):
        checkpoint_tensors("fixture/huge-shape")


def test_a_whole_models_stored_head_is_explained_beside_the_tied_count() -> None:
    """Mistral Small 3.1 as the Hub stores it (its file states no tie_word_embeddings, so Mistral3Config ties the
    head, while the checkpoint keeps its own lm_head): the report counts what the class builds, names the stored
    head and its size as the difference, and finds nothing else unexplained. The stored tensors are the names and
    shapes of the whole class's state dict built by transformers on meta, with the head added."""
    import torch
    import transformers

    from paramscope.io.hub import model_checkpoint_report

    config = presets.get("mistral-small-3.1-24b-instruct").config
    kwargs = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        built = transformers.Mistral3ForConditionalGeneration(transformers.AutoConfig.for_model("mistral3", **kwargs))
    tensors = {name: ("BF16", tuple(p.shape)) for name, p in built.named_parameters()}
    head = (config["text_config"]["vocab_size"], config["text_config"]["hidden_size"])
    tensors["lm_head.weight"] = ("BF16", head)
    stored = sum(math.prod(shape) for _, shape in tensors.values())
    report = model_checkpoint_report(
        CheckpointCount(stored, {"BF16": stored}, tensors, 1), presets.model("mistral-small-3.1-24b-instruct")
    )
    assert (math.prod(head), True, stored - math.prod(head)) == (
        report.groups["tied_lm_head"],
        report.exact,
        report.model_total,
    )
    assert any(line.startswith(f"{math.prod(head):,} in lm_head.weight") for line in report.lines)
