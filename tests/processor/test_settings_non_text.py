"""The non_text setting: skip by default, quarantine on request, anything else refused at start."""

from __future__ import annotations

import pytest

from consumer.exceptions import ConfigError
from consumer.settings import NonText, Settings


def test_skip_is_the_default():
    assert Settings.load(environ={}).non_text is NonText.SKIP


def test_the_file_and_the_environment_set_it(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("non_text: quarantine\n", encoding="utf-8")
    assert Settings.load(path, environ={}).non_text is NonText.QUARANTINE
    assert Settings.load(path, environ={"CRAWL_DECODER_NON_TEXT": "Skip"}).non_text is NonText.SKIP


@pytest.mark.parametrize("value", ["drop", "", "true"])
def test_an_unknown_policy_is_a_configuration_error_naming_the_choices(value):
    with pytest.raises(ConfigError, match=r"non_text.*one of skip, quarantine"):
        Settings.load(environ={"CRAWL_DECODER_NON_TEXT": value})
    with pytest.raises(ConfigError, match="non_text"):
        Settings(transactional_id="t", non_text=value)
