"""bizsim package."""
