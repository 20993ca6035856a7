"""bizsim-lemonade: a lemonade stand over a summer month, an example bizsim world in a package of its own.

Installed, it registers the world ``lemonade`` through the ``bizsim.worlds`` entry point (see ``spec.py``).
"""

from .config import WEATHERS, LemonadeConfig
from .presets import PRESETS
from .world import LemonadeWorld

__all__ = ["PRESETS", "WEATHERS", "LemonadeConfig", "LemonadeWorld"]
