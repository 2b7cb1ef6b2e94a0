"""The ability record the logic's tests have slea.dal.abilities read back."""

from typing import Any


def stored_ability(posterior: Any, version: int) -> Any:
    """The ability item get_ability reads back after one answer: the posterior, its estimate, the version."""
    from slea.dal import abilities

    estimate = posterior.estimate()
    return abilities.stored_ability(
        {
            "entry": "ability#technical",
            "posterior": posterior.to_stored(),
            "theta": estimate.theta,
            "se": estimate.se,
            "answers": 1,
            "version": version,
        }
    )
