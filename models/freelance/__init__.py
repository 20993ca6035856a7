"""The freelance world (EcoGym "Freelance"): a year of gig work with checkable tasks."""

from .answers import Answer, check, normalize_text, numbers_in
from .auditor import Auditor, DeterministicAuditor, LLMAuditor
from .config import REST_LEVELS, FreelanceConfig
from .generate import CATEGORIES, COMPLEXITIES, price_and_effort
from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
from .prompt import ROLE, SYSTEM_PROMPT, role_for
from .tasks import Task, TaskBank, generate_bank, load_reference_tasks
from .world import FreelanceWorld

__all__ = [
    "CATEGORIES",
    "COMPLEXITIES",
    "PRESETS",
    "REST_LEVELS",
    "ROLE",
    "SYSTEM_PROMPT",
    "Answer",
    "Auditor",
    "DeterministicAuditor",
    "FreelanceConfig",
    "FreelanceWorld",
    "LLMAuditor",
    "Task",
    "TaskBank",
    "check",
    "config_from_toml",
    "config_to_toml",
    "generate_bank",
    "load_reference_tasks",
    "normalize_text",
    "numbers_in",
    "preset",
    "price_and_effort",
    "resolve_config",
    "role_for",
]
