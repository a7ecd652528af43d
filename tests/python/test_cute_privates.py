"""What kwcall.cute reads of CuTeDSL's private API, probed one name at a time on the installed
CuTeDSL (a rename fails the test named after it), and the version gate of every entry point."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import re
import warnings
from pathlib import Path

import pytest

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402
from kwcall.cute import _cutedsl, _cutedsl_versions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@cute.jit
def probe_fn(out: cute.Tensor, a: Int32, *, b: Int32 = Int32(2)):  # noqa: B008
    out[0] = Float32(a) + Float32(b)


_OUT = np.zeros(4, dtype=np.float32)


def _compile_sample():
    return cute.compile(probe_fn, from_dlpack(_OUT), Int32(1), options="--enable-tvm-ffi")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    assert not kwcute.is_installed()
    stock = _compile_sample()
    obj = tmp_path_factory.mktemp("privates") / "probe.o"
    stock.export_to_c(str(obj), function_name="probe")
    module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
    return _cutedsl.Sample(stock, _compile_sample, module, "probe")


@pytest.mark.parametrize("private", _cutedsl.PRIVATE_NAMES, ids=lambda p: p.name)
def test_cutedsl_private_name(sample, private):
    assert private.probe(sample), f"CuTeDSL {kwcute.cutedsl_version()} changed {private.name}"


def test_only_the_private_module_spells_cutedsl_private_names():
    # The names the probes cover appear nowhere else in kwcall.cute.
    spelled = [
        "tvm_ffi_provider",
        "_tvm_ffi_function",
        "_kwargs_wrapper",
        "_executor_lock",
        "get_kwargs_wrapper_spec",
        "funcBody",
        "original_signature",
        "ExternalBinaryModule",
        "engine.lookup",
        "map_dataclass_to_tuple",
        "_get_format_from_object_file_path",
    ]
    package = ROOT / "python" / "kwcall" / "cute"
    for path in sorted(package.glob("*.py")):
        if path.name in ("_cutedsl.py", "__init__.py"):
            continue
        code = path.read_text(encoding="utf-8")
        for name in spelled:
            assert name not in code, f"{path.name} spells CuTeDSL's {name}"


def test_the_supported_range_is_written_once():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^cute = \[(.*)\]$", pyproject, re.M).group(1)
    assert extra == f'"{_cutedsl_versions.REQUIREMENT}"'
    assert _cutedsl_versions.SUPPORTED_VERSIONS == ("4.6", "4.7", "4.8")


@pytest.fixture
def unsupported(monkeypatch):
    monkeypatch.setattr(_cutedsl_versions, "cutedsl_version", lambda: "4.5.3")


def test_every_entry_point_checks_the_version(unsupported, tmp_path):
    stock = _compile_sample()
    calls = {
        "compile": lambda: kwcute.compile(probe_fn, from_dlpack(_OUT), Int32(1)),
        "from_stock": lambda: kwcute.from_stock(stock),
        "export_to_c": lambda: kwcute.export_to_c(stock, str(tmp_path / "x.o"), "x"),
    }
    for entry, call in calls.items():
        with pytest.raises(
            RuntimeError,
            match=rf"^kwcall\.cute\.{entry}: nvidia-cutlass-dsl "
            r"4\.5\.3 is not supported \(supported: 4\.6\.x, 4\.7\.x, 4\.8\.x\)",
        ):
            call()
    assert not (tmp_path / "x.o").exists()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kwcute.install() is False
    assert "4.5.3 is not supported" in str(caught[0].message)
    assert not kwcute.is_installed()


def test_without_cutedsl_entry_points_say_how_to_install(monkeypatch):
    monkeypatch.setattr(_cutedsl_versions, "cutedsl_version", lambda: None)
    with pytest.raises(ImportError, match=r'pip install "kwcall\[cute\]"'):
        kwcute.compile(probe_fn, from_dlpack(_OUT), Int32(1))


def test_a_renamed_private_name_fails_its_own_probe(sample):
    # What a CuTeDSL release that renamed _kwargs_wrapper would look like to the probes.
    class Renamed:
        pass

    renamed = Renamed()
    renamed.__dict__.update(vars(sample.stock))
    renamed.__dict__["_kwargs_wrapper_v2"] = renamed.__dict__.pop("_kwargs_wrapper")
    failing = [
        p.name
        for p in _cutedsl.PRIVATE_NAMES
        if "._kwargs_wrapper" == p.name and not p.probe(sample._replace(stock=renamed))
    ]
    assert failing == ["._kwargs_wrapper"]
