"""Text in the learner's language: the one language detector, Korean particles, the fixed
phrase catalogues and the offline generator's item frames."""
