"""The freelance world (EcoGym "Freelance"): a year of gig work with checkable tasks.

Names are imported on first use: reading the registry imports this package, not its world."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bizsim.simcore.lazy import lazy_exports

if TYPE_CHECKING:
    from .answers import Answer, check, normalize_text, numbers_in
    from .auditor import Auditor, DeterministicAuditor, LLMAuditor
    from .config import REST_LEVELS, FreelanceConfig
    from .generate import CATEGORIES, COMPLEXITIES, price_and_effort
    from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
    from .prompt import ROLE, SYSTEM_PROMPT, role_for
    from .tasks import Task, TaskBank, generate_bank, load_reference_tasks
    from .world import FreelanceWorld

__all__ = [
    "CATEGORIES", "COMPLEXITIES", "PRESETS", "REST_LEVELS", "ROLE", "SYSTEM_PROMPT", "Answer", "Auditor",
    "DeterministicAuditor", "FreelanceConfig", "FreelanceWorld", "LLMAuditor", "Task", "TaskBank", "check",
    "config_from_toml", "config_to_toml", "generate_bank", "load_reference_tasks", "normalize_text", "numbers_in",
    "preset", "price_and_effort", "resolve_config", "role_for",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Answer": ".answers", "check": ".answers", "normalize_text": ".answers", "numbers_in": ".answers",
    "Auditor": ".auditor", "DeterministicAuditor": ".auditor", "LLMAuditor": ".auditor",
    "REST_LEVELS": ".config", "FreelanceConfig": ".config",
    "CATEGORIES": ".generate", "COMPLEXITIES": ".generate", "price_and_effort": ".generate",
    "PRESETS": ".presets", "config_from_toml": ".presets", "config_to_toml": ".presets", "preset": ".presets",
    "resolve_config": ".presets",
    "ROLE": ".prompt", "SYSTEM_PROMPT": ".prompt", "role_for": ".prompt",
    "Task": ".tasks", "TaskBank": ".tasks", "generate_bank": ".tasks", "load_reference_tasks": ".tasks",
    "FreelanceWorld": ".world",
})
