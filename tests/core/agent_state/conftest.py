from tests.core.agent_state.helpers import home_lab

__all__ = ["home_lab"]
