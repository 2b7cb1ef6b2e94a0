"""Writing and storing questions: templates (Tool 2), keywords (Tool 3), drafting with a model
or offline, validation (Tool 4) and saving with its retry queue (Tool 5)."""
