"""The experiments: tournaments, ladders, training, benchmarks, the web app and the ``fiveplay`` command
(``fiveplay_env.experiments.cli``). Imported as ``fiveplay_env.experiments`` (``fiveplay_env._layout``)."""
from fiveplay_env._layout import refuse_bare_name

refuse_bare_name(__name__)  # this folder is fiveplay_env.experiments, in a checkout too
