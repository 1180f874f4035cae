"""The device check: a wrongly named device is refused as such, whether torch is installed
or not; a well-named one without torch asks for the extra."""

from __future__ import annotations

import sys

import pytest

from paretosurf._utils.validation import check_torch_device


@pytest.fixture
def without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError


@pytest.mark.parametrize("device", ["gpu", "tpu", "cuda:x", "CPU", "cuda:", ""])
def test_a_misnamed_device_is_refused_without_torch(without_torch: None, device: str) -> None:
    with pytest.raises(ValueError, match=r"device must be None \(numpy\), 'cpu' or 'cuda\[:N\]'"):
        check_torch_device(device)


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1"])
def test_a_well_named_device_without_torch_asks_for_the_extra(
    without_torch: None, device: str
) -> None:
    with pytest.raises(ImportError, match=r"pip install 'paretosurf\[rl\]', or pass device=None"):
        check_torch_device(device)


def test_a_misnamed_device_is_refused_with_torch() -> None:
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda"):
        check_torch_device("mps", numpy_backend=False)
    assert check_torch_device("cpu") == "cpu"
