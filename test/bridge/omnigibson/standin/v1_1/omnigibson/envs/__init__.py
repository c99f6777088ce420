from omnigibson.envs.env_base import Environment  # noqa: F401
