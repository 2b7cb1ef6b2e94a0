"""Text in the learner's language: Korean particles, and the catalogues of fixed phrases."""
