from tests.cli.conftest import assay_cli  # noqa: F401 (the CLI fixture, for the CLI tests here)
