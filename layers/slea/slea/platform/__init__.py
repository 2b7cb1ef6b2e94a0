"""What every package stands on: AWS clients with their time budgets, settings from the
environment, observability, a cache, and the errors every layer may raise (storage failures and
the domain's refusals, which carry no transport status)."""
