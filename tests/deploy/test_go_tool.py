"""go_tool.py builds a pinned tool once per machine, however many pytest-xdist workers ask at once.

The Go toolchain is replaced by a stand-in ``go`` on PATH (a shell script that counts its runs and writes
a tool reporting the pinned version), because what is under test is our lock and cache, not Go; the real
tools' builds are exercised by every chart and rule test.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

FAKE_GO = """\
#!/bin/sh
# go install ... PACKAGE@VERSION: count the run, take a while, write the tool into $GOBIN.
echo run >> "{runs}"
sleep 1
printf '#!/bin/sh\\necho faketool v1.2.3\\n' > "$GOBIN/faketool"
chmod +x "$GOBIN/faketool"
"""

ASK = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    from pathlib import Path
    from go_tool import GoTool
    tool = GoTool(
        name="faketool", package="example.com/faketool", version="v1.2.3", ldflags="",
        version_args=("--version",), reports_version=lambda out: "v1.2.3" in out,
    )
    print(tool.find_or_build(Path({bin_dir!r})))
""")


def test_four_workers_asking_at_once_build_the_tool_once(tmp_path):
    go_dir, bin_dir, runs = tmp_path / "go", tmp_path / "bin", tmp_path / "runs"
    go_dir.mkdir()
    (go_dir / "go").write_text(FAKE_GO.format(runs=runs))
    (go_dir / "go").chmod(stat.S_IRWXU)
    env = {**os.environ, "PATH": f"{go_dir}{os.pathsep}{os.environ['PATH']}"}
    code = ASK.format(here=str(HERE), bin_dir=str(bin_dir))

    workers = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)
    ]
    paths = {worker.communicate(timeout=60)[0].strip() for worker in workers}

    assert all(worker.returncode == 0 for worker in workers)
    assert paths == {str(bin_dir / "faketool")}
    assert runs.read_text().splitlines() == ["run"], "one build; the other workers waited and found it cached"


def test_a_stale_cached_build_is_rebuilt_once(tmp_path):
    go_dir, bin_dir, runs = tmp_path / "go", tmp_path / "bin", tmp_path / "runs"
    go_dir.mkdir()
    bin_dir.mkdir()
    (go_dir / "go").write_text(FAKE_GO.format(runs=runs))
    (go_dir / "go").chmod(stat.S_IRWXU)
    (bin_dir / "faketool").write_text("#!/bin/sh\necho faketool v1.0.0\n")
    (bin_dir / "faketool").chmod(stat.S_IRWXU)
    env = {**os.environ, "PATH": f"{go_dir}{os.pathsep}{os.environ['PATH']}"}
    code = ASK.format(here=str(HERE), bin_dir=str(bin_dir))
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, timeout=60)
    assert runs.read_text().splitlines() == ["run"]
