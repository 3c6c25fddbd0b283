"""The package as a user gets it: an sdist and a wheel built by PyPA's ``build``, installed into fresh
virtual environments in a temporary directory and run from outside the source tree.

Nothing here imports the checkout: every command runs with the new environment's interpreter, a working
directory outside the repository and no ``CRAWL_DECODER_*``/``PYTHONPATH`` variables, so a file that only
the checkout has (the top-level ``schemas/``, ``config/``) shows as a failure.  Builds and installs take a
minute or two (dependencies come from pip's cache or the index); the module's fixtures do each once.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from confluent_kafka import Consumer

from consumer import __version__

REPO = Path(__file__).resolve().parents[2]
# cp932 writes U+FF5E as 0x81 0x60, which WHATWG Shift_JIS reads back as U+FF5E (Python's shift_jis cannot).
SHIFT_JIS_PAGE = '<html><meta charset="shift_jis"><p>東京の天気～晴れ</p></html>'.encode("cp932")

pytestmark = pytest.mark.timeout(900)


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that could point a child at the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWL_DECODER_", "KAFKA_", "PYTHON"))}
    return {**env, **extra}


def run(command: list[str], cwd: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def venv(path: Path, requirement: str, **env: str) -> Path:
    """A fresh virtual environment at *path* with *requirement* installed; its bin directory."""
    run([sys.executable, "-m", "venv", str(path)], cwd=path.parent)
    run([str(path / "bin" / "pip"), "install", "-q", requirement], cwd=path.parent, **env)
    return path / "bin"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist, and the wheel ``build`` makes from it (as an index or a git URL install would).

    Built from a copy of the source tree as a clone has it: setuptools writes its release tree and
    egg-info into the project directory, which other tests and workers read meanwhile, and a checkout's
    in-place extensions and caches must not leak into the sdist."""
    source = tmp_path_factory.mktemp("source") / "crawl-decoder"
    leftovers = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", ".pytest_cache", ".hypothesis")
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*leftovers))
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=out)
    [wheel] = out.glob("*.whl")
    [sdist] = out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def installed(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel with the ``scrapy`` extra, as a crawler installs it; the environment's bin directory."""
    return venv(tmp_path_factory.mktemp("wheel-env") / "venv", f"{dist['wheel']}[scrapy]")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working directory with nothing of the repository in it."""
    assert REPO not in tmp_path.parents
    return tmp_path


class TestTheDistributions:
    def test_the_wheel_carries_schemas_example_overrides_and_compiled_decoders(self, dist):
        names = zipfile.ZipFile(dist["wheel"]).namelist()
        assert {f"consumer/schemas/{p.name}" for p in (REPO / "schemas").glob("*.avsc")} <= set(names)
        assert "consumer/config/overrides.yaml" in names
        compiled = {name.split("/")[-1].split(".")[0] for name in names if name.endswith(".so")}
        declared = {name.rsplit(".", 1)[1] for name in _declared_extensions()}
        assert declared >= {"prescan", "utf8", "utf16", "single_byte", "multibyte", "mojibake", "detection"}
        assert declared <= compiled
        assert not [name for name in names if name.startswith(("tests/", "schemas/", "bench/"))]

    def test_the_sdist_carries_what_the_wheel_is_built_from(self, dist):
        import tarfile

        root = dist["sdist"].name.removesuffix(".tar.gz")
        with tarfile.open(dist["sdist"]) as archive:
            names = set(archive.getnames())
        for c_source in REPO.glob("consumer/**/*.c"):
            assert f"{root}/{c_source.relative_to(REPO)}" in names
        assert {f"{root}/schemas/{p.name}" for p in (REPO / "schemas").glob("*.avsc")} <= names
        assert {f"{root}/setup.py", f"{root}/config/overrides.yaml", f"{root}/CHANGELOG.md"} <= names


class TestTheInstalledWheel:
    def test_version_says_what_is_compiled(self, installed, outside):
        lines = run([str(installed / "crawl-decoder"), "--version"], cwd=outside).stdout.splitlines()
        assert lines[0] == f"crawl-decoder {__version__}"
        assert "compiled: prescan utf8 utf16 single_byte multibyte mojibake detection undisputed" in lines

    def test_decode(self, installed, outside):
        (outside / "page.html").write_bytes(SHIFT_JIS_PAGE)
        result = run([str(installed / "crawl-decoder"), "decode", "page.html"], cwd=outside)
        # WHATWG Shift_JIS: 0x8160 is U+FF5E FULLWIDTH TILDE, not the wave dash of Python's shift_jis.
        assert "東京の天気～晴れ" in result.stdout

    def test_the_demo_finds_its_example_overrides_inside_the_package(self, installed, outside):
        check = "from consumer.demo import REPO_CONFIG as c; assert c.is_file() and 'site-packages' in str(c), c"
        run([str(installed / "python"), "-c", check], cwd=outside)

    def test_the_scrapy_extension_imports(self, installed, outside):
        run([str(installed / "python"), "-c", "import consumer.integrations.scrapy"], cwd=outside)

    def test_landing_writer_and_run_carry_records_to_the_clean_topic(
        self, installed, outside, topic_factory, kafka_bootstrap
    ):
        landing, clean, quarantine = topic_factory(partitions=2), topic_factory(partitions=2), topic_factory()
        writer = textwrap.dedent(f"""
            from consumer.ingest import LandingWriter
            from consumer.kafka import KafkaConnection
            with LandingWriter({landing!r}, KafkaConnection({kafka_bootstrap!r}), crawl_id="wheel") as landing:
                for n in range(20):
                    landing.write(f"https://www.example.jp/{{n}}", 200, [("Content-Type", "text/html")],
                                  {SHIFT_JIS_PAGE!r}, None)
        """)
        run([str(installed / "python"), "-c", writer], cwd=outside, timeout=120)

        env = clean_env(
            KAFKA_BOOTSTRAP_SERVERS=kafka_bootstrap,
            CRAWL_DECODER_LANDING_TOPIC=landing,
            CRAWL_DECODER_CLEAN_TOPIC=clean,
            CRAWL_DECODER_QUARANTINE_TOPIC=quarantine,
            CRAWL_DECODER_GROUP_ID=f"wheel-{uuid.uuid4().hex}",
            CRAWL_DECODER_TRANSACTIONAL_ID=f"wheel-{uuid.uuid4().hex}",
            CRAWL_DECODER_HTTP_PORT="0",
            CRAWL_DECODER_OVERRIDES_PATH=str(outside / "no-overrides.yaml"),
            CRAWL_DECODER_BATCH_TIMEOUT_MS="100",
        )
        with open(outside / "run.log", "wb") as log:
            process = subprocess.Popen(
                [str(installed / "crawl-decoder"), "run"], cwd=outside, env=env, stdout=log, stderr=subprocess.STDOUT
            )
            try:
                values = _read(kafka_bootstrap, clean, count=20, timeout=120)
            finally:
                process.send_signal(signal.SIGTERM)
                status = process.wait(60)
        assert len(values) == 20, (outside / "run.log").read_text(errors="replace")[-3000:]
        assert all("東京の天気～晴れ".encode() in value for value in values)
        assert status == 0


def test_without_a_compiler_the_sdist_installs_the_readable_decoders(dist, tmp_path_factory):
    """The C extensions are optional: with no working compiler the install succeeds and decodes the same."""
    where = tmp_path_factory.mktemp("no-compiler")
    no_compiler = {"CC": "/bin/false", "LDSHARED": "/bin/false"}
    bin_dir = venv(where / "venv", str(dist["sdist"]), **no_compiler)
    lines = run([str(bin_dir / "crawl-decoder"), "--version"], cwd=where).stdout.splitlines()
    assert "compiled: none" in lines
    (where / "page.html").write_bytes(SHIFT_JIS_PAGE)
    assert "東京の天気～晴れ" in run([str(bin_dir / "crawl-decoder"), "decode", "page.html"], cwd=where).stdout


def _declared_extensions() -> list[str]:
    import tomllib

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    return [module["name"] for module in pyproject["tool"]["setuptools"]["ext-modules"]]


def _read(bootstrap: str, topic: str, *, count: int, timeout: float) -> list[bytes]:
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}", "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "enable.auto.commit": False,
    })
    consumer.subscribe([topic])
    values: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while len(values) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value())
    finally:
        consumer.close()
    return values

