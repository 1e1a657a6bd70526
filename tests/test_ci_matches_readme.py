"""`.ci/run` runs exactly the README's test command (so CI proves the install steps)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    test_command = readme.strip().splitlines()[1]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == test_command
