"""Shared test set-up: the tests folder on the path, and the fixture Hub on 127.0.0.1."""

import pathlib
import sys
from collections.abc import Iterator

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from hub_server import HubServer, configure_huggingface_hub  # noqa: E402 - needs the path above


@pytest.fixture(scope="session")
def hub_server() -> Iterator[HubServer]:
    """The fixture Hub, started once per test run."""
    with HubServer() as server:
        yield server


@pytest.fixture
def hub(hub_server: HubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> HubServer:
    """The fixture Hub, huggingface_hub pointed at it with an empty cache and no token, its request log empty."""
    configure_huggingface_hub(monkeypatch, hub_server.endpoint, tmp_path / "hf")
    hub_server.reset()
    return hub_server
