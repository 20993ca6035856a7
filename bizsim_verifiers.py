"""The verifiers 0.4 taskset id ``bizsim-verifiers``: an alias of :mod:`bizsim.surfaces.verifiers_taskset`.

verifiers 0.4 imports a taskset by a top-level module name derived from its id (a dotted path cannot be one), so
bizsim installs this module beside its ``bizsim.*`` packages; it holds nothing of its own. Its verifiers classes
(``BizSimTaskset``, ``BizSimEnv``, ...) are built on first use, as the aliased module's are.
"""

from bizsim.surfaces.verifiers_taskset import (  # noqa: F401 - re-exported for verifiers' loader
    DEFAULT_SEEDS,
    TASKSET_ID,
    TasksetSettings,
    __all__,
    __getattr__,
    load_environment,
    taskset_settings,
)
